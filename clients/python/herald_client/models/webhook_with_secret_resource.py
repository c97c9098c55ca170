from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WebhookWithSecretResource")


@_attrs_define
class WebhookWithSecretResource:
    """An endpoint with its signing secret: the answer of create and rotate-secret, the only times the secret
    is shown.

        Attributes:
            created_at (datetime.datetime):
            enabled (bool):
            events (list[str]): The event types it receives (`webhook.test` always goes to the endpoint it was sent to).
            id (str): `whk_…`
            updated_at (datetime.datetime):
            url (str):
            secret (str): `whsec_` + base64 of the key; keep it, it is not shown again.
            description (None | str | Unset):
            disabled_reason (None | str | Unset): Why Herald disabled it (after 5 days of failing every attempt), else
                `null`.
            secret_rotated_until (datetime.datetime | None | Unset): Until when the secret before the last rotation still
                signs (a second signature); absent when no
                rotation is in progress.
    """

    created_at: datetime.datetime
    enabled: bool
    events: list[str]
    id: str
    updated_at: datetime.datetime
    url: str
    secret: str
    description: None | str | Unset = UNSET
    disabled_reason: None | str | Unset = UNSET
    secret_rotated_until: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        enabled = self.enabled

        events = self.events

        id = self.id

        updated_at = self.updated_at.isoformat()

        url = self.url

        secret = self.secret

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        disabled_reason: None | str | Unset
        if isinstance(self.disabled_reason, Unset):
            disabled_reason = UNSET
        else:
            disabled_reason = self.disabled_reason

        secret_rotated_until: None | str | Unset
        if isinstance(self.secret_rotated_until, Unset):
            secret_rotated_until = UNSET
        elif isinstance(self.secret_rotated_until, datetime.datetime):
            secret_rotated_until = self.secret_rotated_until.isoformat()
        else:
            secret_rotated_until = self.secret_rotated_until

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "enabled": enabled,
                "events": events,
                "id": id,
                "updated_at": updated_at,
                "url": url,
                "secret": secret,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if disabled_reason is not UNSET:
            field_dict["disabled_reason"] = disabled_reason
        if secret_rotated_until is not UNSET:
            field_dict["secret_rotated_until"] = secret_rotated_until

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        enabled = d.pop("enabled")

        events = cast(list[str], d.pop("events"))

        id = d.pop("id")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        url = d.pop("url")

        secret = d.pop("secret")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_disabled_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        disabled_reason = _parse_disabled_reason(d.pop("disabled_reason", UNSET))

        def _parse_secret_rotated_until(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                secret_rotated_until_type_0 = datetime.datetime.fromisoformat(data)

                return secret_rotated_until_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        secret_rotated_until = _parse_secret_rotated_until(d.pop("secret_rotated_until", UNSET))

        webhook_with_secret_resource = cls(
            created_at=created_at,
            enabled=enabled,
            events=events,
            id=id,
            updated_at=updated_at,
            url=url,
            secret=secret,
            description=description,
            disabled_reason=disabled_reason,
            secret_rotated_until=secret_rotated_until,
        )

        webhook_with_secret_resource.additional_properties = d
        return webhook_with_secret_resource

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
