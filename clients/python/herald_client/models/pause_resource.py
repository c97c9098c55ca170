from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PauseResource")


@_attrs_define
class PauseResource:
    """Why a broadcast paused: the network's error on one of its messages.

    Attributes:
        code (str): Herald's error code (`spam_rate_limited`, `template_paused`, …). Example: spam_rate_limited.
        detail (str):
        paused_at (datetime.datetime):
        network_code (int | None | Unset): The network's own error code, when it gave one. Example: 131048.
    """

    code: str
    detail: str
    paused_at: datetime.datetime
    network_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        detail = self.detail

        paused_at = self.paused_at.isoformat()

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
                "paused_at": paused_at,
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

        paused_at = datetime.datetime.fromisoformat(d.pop("paused_at"))

        def _parse_network_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        network_code = _parse_network_code(d.pop("network_code", UNSET))

        pause_resource = cls(
            code=code,
            detail=detail,
            paused_at=paused_at,
            network_code=network_code,
        )

        pause_resource.additional_properties = d
        return pause_resource

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
