from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageErrorResource")


@_attrs_define
class MessageErrorResource:
    """Why a message failed.

    Attributes:
        code (str):  Example: recipient_unreachable.
        detail (str):
        title (str):
        network_code (int | None | Unset): The network's own error code, when it gave one. Example: 131026.
    """

    code: str
    detail: str
    title: str
    network_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        detail = self.detail

        title = self.title

        network_code: int | None | Unset
        if isinstance(self.network_code, Unset):
            network_code = UNSET
        else:
            network_code = self.network_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "detail": detail,
                "title": title,
            }
        )
        if network_code is not UNSET:
            field_dict["network_code"] = network_code

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = d.pop("code")

        detail = d.pop("detail")

        title = d.pop("title")

        def _parse_network_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        network_code = _parse_network_code(d.pop("network_code", UNSET))

        message_error_resource = cls(
            code=code,
            detail=detail,
            title=title,
            network_code=network_code,
        )

        message_error_resource.additional_properties = d
        return message_error_resource

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
