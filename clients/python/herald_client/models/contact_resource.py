from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_window_resource import ContactWindowResource


T = TypeVar("T", bound="ContactResource")


@_attrs_define
class ContactResource:
    """A person as the organization knows them: window, marketing preference and block state.

    Example:
        {'blocked': False, 'blocked_at': None, 'marketing': 'stopped', 'marketing_changed_at':
            '2026-11-21T10:16:00.000Z', 'marketing_source': 'network', 'number': '+15551234567', 'user_id':
            'US.13491208655302741918', 'window': {'expires_at': '2026-11-22T10:15:30.123Z', 'from': '+15550001111',
            'last_inbound_at': '2026-11-21T10:15:30.123Z', 'open': True}}

    Attributes:
        blocked (bool):
        marketing (str): `allowed` or `stopped`. Example: allowed.
        updated_at (datetime.datetime):
        blocked_at (datetime.datetime | None | Unset):
        marketing_changed_at (datetime.datetime | None | Unset):
        marketing_source (None | str | Unset): Who last changed `marketing`: `network` (the person, in WhatsApp), `api`,
            or `keyword`.
        number (None | str | Unset): E.164, when known.
        user_id (None | str | Unset): The business-scoped user id, when known.
        window (ContactWindowResource | None | Unset):
    """

    blocked: bool
    marketing: str
    updated_at: datetime.datetime
    blocked_at: datetime.datetime | None | Unset = UNSET
    marketing_changed_at: datetime.datetime | None | Unset = UNSET
    marketing_source: None | str | Unset = UNSET
    number: None | str | Unset = UNSET
    user_id: None | str | Unset = UNSET
    window: ContactWindowResource | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.contact_window_resource import ContactWindowResource  # noqa: PLC0415

        blocked = self.blocked

        marketing = self.marketing

        updated_at = self.updated_at.isoformat()

        blocked_at: None | str | Unset
        if isinstance(self.blocked_at, Unset):
            blocked_at = UNSET
        elif isinstance(self.blocked_at, datetime.datetime):
            blocked_at = self.blocked_at.isoformat()
        else:
            blocked_at = self.blocked_at

        marketing_changed_at: None | str | Unset
        if isinstance(self.marketing_changed_at, Unset):
            marketing_changed_at = UNSET
        elif isinstance(self.marketing_changed_at, datetime.datetime):
            marketing_changed_at = self.marketing_changed_at.isoformat()
        else:
            marketing_changed_at = self.marketing_changed_at

        marketing_source: None | str | Unset
        if isinstance(self.marketing_source, Unset):
            marketing_source = UNSET
        else:
            marketing_source = self.marketing_source

        number: None | str | Unset
        if isinstance(self.number, Unset):
            number = UNSET
        else:
            number = self.number

        user_id: None | str | Unset
        if isinstance(self.user_id, Unset):
            user_id = UNSET
        else:
            user_id = self.user_id

        window: dict[str, Any] | None | Unset
        if isinstance(self.window, Unset):
            window = UNSET
        elif isinstance(self.window, ContactWindowResource):
            window = self.window.to_dict()
        else:
            window = self.window

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocked": blocked,
                "marketing": marketing,
                "updated_at": updated_at,
            }
        )
        if blocked_at is not UNSET:
            field_dict["blocked_at"] = blocked_at
        if marketing_changed_at is not UNSET:
            field_dict["marketing_changed_at"] = marketing_changed_at
        if marketing_source is not UNSET:
            field_dict["marketing_source"] = marketing_source
        if number is not UNSET:
            field_dict["number"] = number
        if user_id is not UNSET:
            field_dict["user_id"] = user_id
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.contact_window_resource import ContactWindowResource  # noqa: PLC0415

        d = dict(src_dict)
        blocked = d.pop("blocked")

        marketing = d.pop("marketing")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_blocked_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                blocked_at_type_0 = datetime.datetime.fromisoformat(data)

                return blocked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        blocked_at = _parse_blocked_at(d.pop("blocked_at", UNSET))

        def _parse_marketing_changed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                marketing_changed_at_type_0 = datetime.datetime.fromisoformat(data)

                return marketing_changed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        marketing_changed_at = _parse_marketing_changed_at(d.pop("marketing_changed_at", UNSET))

        def _parse_marketing_source(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        marketing_source = _parse_marketing_source(d.pop("marketing_source", UNSET))

        def _parse_number(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        number = _parse_number(d.pop("number", UNSET))

        def _parse_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user_id = _parse_user_id(d.pop("user_id", UNSET))

        def _parse_window(data: object) -> ContactWindowResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                window_type_1 = ContactWindowResource.from_dict(data)

                return window_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContactWindowResource | None | Unset, data)

        window = _parse_window(d.pop("window", UNSET))

        contact_resource = cls(
            blocked=blocked,
            marketing=marketing,
            updated_at=updated_at,
            blocked_at=blocked_at,
            marketing_changed_at=marketing_changed_at,
            marketing_source=marketing_source,
            number=number,
            user_id=user_id,
            window=window,
        )

        contact_resource.additional_properties = d
        return contact_resource

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
