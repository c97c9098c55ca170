from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="InboundReadRequest")


@_attrs_define
class InboundReadRequest:
    """`POST /api/v1/inbound/{id}/read`; the body may be empty.

    Attributes:
        typing (bool | None | Unset): Also show the customer the typing indicator (until the business answers, at most
            25 s).
    """

    typing: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        typing: bool | None | Unset
        if isinstance(self.typing, Unset):
            typing = UNSET
        else:
            typing = self.typing

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if typing is not UNSET:
            field_dict["typing"] = typing

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_typing(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        typing = _parse_typing(d.pop("typing", UNSET))

        inbound_read_request = cls(
            typing=typing,
        )

        inbound_read_request.additional_properties = d
        return inbound_read_request

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
