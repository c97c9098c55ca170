from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContactWindowResource")


@_attrs_define
class ContactWindowResource:
    """A contact's service window with one sender (docs/api.md §7).

    Attributes:
        from_ (str):  Example: +15550001111.
        open_ (bool):
        expires_at (datetime.datetime | None | Unset):
        last_inbound_at (datetime.datetime | None | Unset):
    """

    from_: str
    open_: bool
    expires_at: datetime.datetime | None | Unset = UNSET
    last_inbound_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        open_ = self.open_

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        elif isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        last_inbound_at: None | str | Unset
        if isinstance(self.last_inbound_at, Unset):
            last_inbound_at = UNSET
        elif isinstance(self.last_inbound_at, datetime.datetime):
            last_inbound_at = self.last_inbound_at.isoformat()
        else:
            last_inbound_at = self.last_inbound_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "open": open_,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if last_inbound_at is not UNSET:
            field_dict["last_inbound_at"] = last_inbound_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        open_ = d.pop("open")

        def _parse_expires_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_last_inbound_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_inbound_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_inbound_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_inbound_at = _parse_last_inbound_at(d.pop("last_inbound_at", UNSET))

        contact_window_resource = cls(
            from_=from_,
            open_=open_,
            expires_at=expires_at,
            last_inbound_at=last_inbound_at,
        )

        contact_window_resource.additional_properties = d
        return contact_window_resource

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
