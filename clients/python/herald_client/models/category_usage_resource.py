from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cost_resource import CostResource


T = TypeVar("T", bound="CategoryUsageResource")


@_attrs_define
class CategoryUsageResource:
    """One category's messages.

    Attributes:
        billable (int): Of them, those the network bills.
        messages (int):
        category (None | str | Unset): The network's pricing category; `null` for messages it has not priced yet.
            Example: utility.
        estimated_cost (CostResource | None | Unset):
    """

    billable: int
    messages: int
    category: None | str | Unset = UNSET
    estimated_cost: CostResource | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cost_resource import CostResource  # noqa: PLC0415

        billable = self.billable

        messages = self.messages

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        estimated_cost: dict[str, Any] | None | Unset
        if isinstance(self.estimated_cost, Unset):
            estimated_cost = UNSET
        elif isinstance(self.estimated_cost, CostResource):
            estimated_cost = self.estimated_cost.to_dict()
        else:
            estimated_cost = self.estimated_cost

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "billable": billable,
                "messages": messages,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if estimated_cost is not UNSET:
            field_dict["estimated_cost"] = estimated_cost

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cost_resource import CostResource  # noqa: PLC0415

        d = dict(src_dict)
        billable = d.pop("billable")

        messages = d.pop("messages")

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_estimated_cost(data: object) -> CostResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimated_cost_type_1 = CostResource.from_dict(data)

                return estimated_cost_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostResource | None | Unset, data)

        estimated_cost = _parse_estimated_cost(d.pop("estimated_cost", UNSET))

        category_usage_resource = cls(
            billable=billable,
            messages=messages,
            category=category,
            estimated_cost=estimated_cost,
        )

        category_usage_resource.additional_properties = d
        return category_usage_resource

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
