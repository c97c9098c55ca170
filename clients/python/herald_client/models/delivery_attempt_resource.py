from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeliveryAttemptResource")


@_attrs_define
class DeliveryAttemptResource:
    """One attempt of a delivery.

    Attributes:
        at (str):
        duration_ms (int):
        number (int): 1 for the first attempt.
        response_body (str): The first 1 KiB of the answer.
        error_kind (None | str | Unset): `timeout`, `connect`, `blocked_destination`, `redirect`, `http_status`, `tls`,
            `no_signing_secret`; `null` on success.
        status_code (int | None | Unset):
    """

    at: str
    duration_ms: int
    number: int
    response_body: str
    error_kind: None | str | Unset = UNSET
    status_code: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        duration_ms = self.duration_ms

        number = self.number

        response_body = self.response_body

        error_kind: None | str | Unset
        if isinstance(self.error_kind, Unset):
            error_kind = UNSET
        else:
            error_kind = self.error_kind

        status_code: int | None | Unset
        if isinstance(self.status_code, Unset):
            status_code = UNSET
        else:
            status_code = self.status_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "duration_ms": duration_ms,
                "number": number,
                "response_body": response_body,
            }
        )
        if error_kind is not UNSET:
            field_dict["error_kind"] = error_kind
        if status_code is not UNSET:
            field_dict["status_code"] = status_code

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = d.pop("at")

        duration_ms = d.pop("duration_ms")

        number = d.pop("number")

        response_body = d.pop("response_body")

        def _parse_error_kind(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_kind = _parse_error_kind(d.pop("error_kind", UNSET))

        def _parse_status_code(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        status_code = _parse_status_code(d.pop("status_code", UNSET))

        delivery_attempt_resource = cls(
            at=at,
            duration_ms=duration_ms,
            number=number,
            response_body=response_body,
            error_kind=error_kind,
            status_code=status_code,
        )

        delivery_attempt_resource.additional_properties = d
        return delivery_attempt_resource

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
