from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cost_resource import CostResource


T = TypeVar("T", bound="MarketUsageResource")


@_attrs_define
class MarketUsageResource:
    """One pricing market's messages: the recipient's market on the day each was created.

    Attributes:
        billable (int): Of them, those the network bills.
        market (str): Meta's market (`brazil`, `rest_of_africa`, …); `other` for numbers no market lists and for
            business-scoped user ids. Example: brazil.
        messages (int):
        estimated_cost (CostResource | None | Unset):
    """

    billable: int
    market: str
    messages: int
    estimated_cost: CostResource | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cost_resource import CostResource  # noqa: PLC0415

        billable = self.billable

        market = self.market

        messages = self.messages

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
                "market": market,
                "messages": messages,
            }
        )
        if estimated_cost is not UNSET:
            field_dict["estimated_cost"] = estimated_cost

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cost_resource import CostResource  # noqa: PLC0415

        d = dict(src_dict)
        billable = d.pop("billable")

        market = d.pop("market")

        messages = d.pop("messages")

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

        market_usage_resource = cls(
            billable=billable,
            market=market,
            messages=messages,
            estimated_cost=estimated_cost,
        )

        market_usage_resource.additional_properties = d
        return market_usage_resource

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
