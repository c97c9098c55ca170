from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PricingResource")


@_attrs_define
class PricingResource:
    """The network's pricing of a message (Meta's `pricing` object, lowercased; docs/api.md §5).

    Attributes:
        billable (bool | None | Unset):
        category (None | str | Unset): `marketing`, `utility`, `authentication`, `authentication_international`,
            `service`, … Example: utility.
        model (None | str | Unset): `pmp` (per message) or `cbp` (conversation based). Example: pmp.
        type_ (None | str | Unset): `regular`, `free_customer_service` or `free_entry_point`. Example: regular.
    """

    billable: bool | None | Unset = UNSET
    category: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    type_: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        billable: bool | None | Unset
        if isinstance(self.billable, Unset):
            billable = UNSET
        else:
            billable = self.billable

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if billable is not UNSET:
            field_dict["billable"] = billable
        if category is not UNSET:
            field_dict["category"] = category
        if model is not UNSET:
            field_dict["model"] = model
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_billable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        billable = _parse_billable(d.pop("billable", UNSET))

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        pricing_resource = cls(
            billable=billable,
            category=category,
            model=model,
            type_=type_,
        )

        pricing_resource.additional_properties = d
        return pricing_resource

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
