from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_error_resource import MessageErrorResource


T = TypeVar("T", bound="EventResource")


@_attrs_define
class EventResource:
    """One entry of a message's status history.

    Attributes:
        applied (bool): Whether it changed the message (late and duplicate reports are recorded, not applied).
        id (str):  Example: evt_01JD0000000000000000000000.
        occurred_at (datetime.datetime):
        recorded_at (datetime.datetime):
        source (str): `herald` or `network`.
        status (str):
        error (MessageErrorResource | None | Unset):
        previous_status (None | str | Unset): The status before this event, when it was applied.
    """

    applied: bool
    id: str
    occurred_at: datetime.datetime
    recorded_at: datetime.datetime
    source: str
    status: str
    error: MessageErrorResource | None | Unset = UNSET
    previous_status: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_error_resource import MessageErrorResource  # noqa: PLC0415

        applied = self.applied

        id = self.id

        occurred_at = self.occurred_at.isoformat()

        recorded_at = self.recorded_at.isoformat()

        source = self.source

        status = self.status

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, MessageErrorResource):
            error = self.error.to_dict()
        else:
            error = self.error

        previous_status: None | str | Unset
        if isinstance(self.previous_status, Unset):
            previous_status = UNSET
        else:
            previous_status = self.previous_status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "applied": applied,
                "id": id,
                "occurred_at": occurred_at,
                "recorded_at": recorded_at,
                "source": source,
                "status": status,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if previous_status is not UNSET:
            field_dict["previous_status"] = previous_status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_error_resource import MessageErrorResource  # noqa: PLC0415

        d = dict(src_dict)
        applied = d.pop("applied")

        id = d.pop("id")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))

        recorded_at = datetime.datetime.fromisoformat(d.pop("recorded_at"))

        source = d.pop("source")

        status = d.pop("status")

        def _parse_error(data: object) -> MessageErrorResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = MessageErrorResource.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageErrorResource | None | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_previous_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_status = _parse_previous_status(d.pop("previous_status", UNSET))

        event_resource = cls(
            applied=applied,
            id=id,
            occurred_at=occurred_at,
            recorded_at=recorded_at,
            source=source,
            status=status,
            error=error,
            previous_status=previous_status,
        )

        event_resource.additional_properties = d
        return event_resource

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
