from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SenderResource")


@_attrs_define
class SenderResource:
    """One of the organization's sender numbers, with what the network last reported of it.

    Attributes:
        business_account_id (str): The business account (WABA) that owns the number and its templates.
        created_at (datetime.datetime):
        default (bool): Sends without `from` use the default sender.
        id (str):  Example: snd_01JD….
        number (str): The number, E.164. Example: +15550001111.
        phone_number_id (str): The network's id of the number (`phone_number_id`).
        throughput_per_second (int): Messages per second the network allows this number.
        messaging_limit (None | str | Unset): The network's messaging limit tier (`TIER_250`, `TIER_1K`, `TIER_10K`,
            `TIER_100K`,
            `TIER_UNLIMITED`, …); `null` until reported. Example: TIER_10K.
        quality_rating (None | str | Unset): `GREEN`, `YELLOW`, `RED` or `UNKNOWN`; `null` until the network reports on
            the number. Example: GREEN.
        quality_updated_at (datetime.datetime | None | Unset): When the network last reported the number's quality or
            limit.
        webhook_fields_missing (list[str] | None | Unset): The webhook fields Herald reads that the number's business
            account was last found not to deliver to
            Herald's Meta app (`[]`: none missing); `null` until checked, which the template sync does for each
            business account. Meta's `subscribed_apps` names apps, not fields, so an account that does not
            deliver to Herald's app lists every field. Example: [].
    """

    business_account_id: str
    created_at: datetime.datetime
    default: bool
    id: str
    number: str
    phone_number_id: str
    throughput_per_second: int
    messaging_limit: None | str | Unset = UNSET
    quality_rating: None | str | Unset = UNSET
    quality_updated_at: datetime.datetime | None | Unset = UNSET
    webhook_fields_missing: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        business_account_id = self.business_account_id

        created_at = self.created_at.isoformat()

        default = self.default

        id = self.id

        number = self.number

        phone_number_id = self.phone_number_id

        throughput_per_second = self.throughput_per_second

        messaging_limit: None | str | Unset
        if isinstance(self.messaging_limit, Unset):
            messaging_limit = UNSET
        else:
            messaging_limit = self.messaging_limit

        quality_rating: None | str | Unset
        if isinstance(self.quality_rating, Unset):
            quality_rating = UNSET
        else:
            quality_rating = self.quality_rating

        quality_updated_at: None | str | Unset
        if isinstance(self.quality_updated_at, Unset):
            quality_updated_at = UNSET
        elif isinstance(self.quality_updated_at, datetime.datetime):
            quality_updated_at = self.quality_updated_at.isoformat()
        else:
            quality_updated_at = self.quality_updated_at

        webhook_fields_missing: list[str] | None | Unset
        if isinstance(self.webhook_fields_missing, Unset):
            webhook_fields_missing = UNSET
        elif isinstance(self.webhook_fields_missing, list):
            webhook_fields_missing = self.webhook_fields_missing

        else:
            webhook_fields_missing = self.webhook_fields_missing

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "business_account_id": business_account_id,
                "created_at": created_at,
                "default": default,
                "id": id,
                "number": number,
                "phone_number_id": phone_number_id,
                "throughput_per_second": throughput_per_second,
            }
        )
        if messaging_limit is not UNSET:
            field_dict["messaging_limit"] = messaging_limit
        if quality_rating is not UNSET:
            field_dict["quality_rating"] = quality_rating
        if quality_updated_at is not UNSET:
            field_dict["quality_updated_at"] = quality_updated_at
        if webhook_fields_missing is not UNSET:
            field_dict["webhook_fields_missing"] = webhook_fields_missing

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        business_account_id = d.pop("business_account_id")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        default = d.pop("default")

        id = d.pop("id")

        number = d.pop("number")

        phone_number_id = d.pop("phone_number_id")

        throughput_per_second = d.pop("throughput_per_second")

        def _parse_messaging_limit(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        messaging_limit = _parse_messaging_limit(d.pop("messaging_limit", UNSET))

        def _parse_quality_rating(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        quality_rating = _parse_quality_rating(d.pop("quality_rating", UNSET))

        def _parse_quality_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                quality_updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return quality_updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        quality_updated_at = _parse_quality_updated_at(d.pop("quality_updated_at", UNSET))

        def _parse_webhook_fields_missing(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                webhook_fields_missing_type_0 = cast(list[str], data)

                return webhook_fields_missing_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        webhook_fields_missing = _parse_webhook_fields_missing(d.pop("webhook_fields_missing", UNSET))

        sender_resource = cls(
            business_account_id=business_account_id,
            created_at=created_at,
            default=default,
            id=id,
            number=number,
            phone_number_id=phone_number_id,
            throughput_per_second=throughput_per_second,
            messaging_limit=messaging_limit,
            quality_rating=quality_rating,
            quality_updated_at=quality_updated_at,
            webhook_fields_missing=webhook_fields_missing,
        )

        sender_resource.additional_properties = d
        return sender_resource

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
