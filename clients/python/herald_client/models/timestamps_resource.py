from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TimestampsResource")


@_attrs_define
class TimestampsResource:
    """When each status was reached.

    Attributes:
        accepted (datetime.datetime | None | Unset):
        cancelled (datetime.datetime | None | Unset):
        delivered (datetime.datetime | None | Unset):
        failed (datetime.datetime | None | Unset):
        read (datetime.datetime | None | Unset):
        scheduled (datetime.datetime | None | Unset): When a scheduled message was accepted (and counted); such a
            message has no `accepted` time.
        sent (datetime.datetime | None | Unset):
        submitted (datetime.datetime | None | Unset):
    """

    accepted: datetime.datetime | None | Unset = UNSET
    cancelled: datetime.datetime | None | Unset = UNSET
    delivered: datetime.datetime | None | Unset = UNSET
    failed: datetime.datetime | None | Unset = UNSET
    read: datetime.datetime | None | Unset = UNSET
    scheduled: datetime.datetime | None | Unset = UNSET
    sent: datetime.datetime | None | Unset = UNSET
    submitted: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accepted: None | str | Unset
        if isinstance(self.accepted, Unset):
            accepted = UNSET
        elif isinstance(self.accepted, datetime.datetime):
            accepted = self.accepted.isoformat()
        else:
            accepted = self.accepted

        cancelled: None | str | Unset
        if isinstance(self.cancelled, Unset):
            cancelled = UNSET
        elif isinstance(self.cancelled, datetime.datetime):
            cancelled = self.cancelled.isoformat()
        else:
            cancelled = self.cancelled

        delivered: None | str | Unset
        if isinstance(self.delivered, Unset):
            delivered = UNSET
        elif isinstance(self.delivered, datetime.datetime):
            delivered = self.delivered.isoformat()
        else:
            delivered = self.delivered

        failed: None | str | Unset
        if isinstance(self.failed, Unset):
            failed = UNSET
        elif isinstance(self.failed, datetime.datetime):
            failed = self.failed.isoformat()
        else:
            failed = self.failed

        read: None | str | Unset
        if isinstance(self.read, Unset):
            read = UNSET
        elif isinstance(self.read, datetime.datetime):
            read = self.read.isoformat()
        else:
            read = self.read

        scheduled: None | str | Unset
        if isinstance(self.scheduled, Unset):
            scheduled = UNSET
        elif isinstance(self.scheduled, datetime.datetime):
            scheduled = self.scheduled.isoformat()
        else:
            scheduled = self.scheduled

        sent: None | str | Unset
        if isinstance(self.sent, Unset):
            sent = UNSET
        elif isinstance(self.sent, datetime.datetime):
            sent = self.sent.isoformat()
        else:
            sent = self.sent

        submitted: None | str | Unset
        if isinstance(self.submitted, Unset):
            submitted = UNSET
        elif isinstance(self.submitted, datetime.datetime):
            submitted = self.submitted.isoformat()
        else:
            submitted = self.submitted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if accepted is not UNSET:
            field_dict["accepted"] = accepted
        if cancelled is not UNSET:
            field_dict["cancelled"] = cancelled
        if delivered is not UNSET:
            field_dict["delivered"] = delivered
        if failed is not UNSET:
            field_dict["failed"] = failed
        if read is not UNSET:
            field_dict["read"] = read
        if scheduled is not UNSET:
            field_dict["scheduled"] = scheduled
        if sent is not UNSET:
            field_dict["sent"] = sent
        if submitted is not UNSET:
            field_dict["submitted"] = submitted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_accepted(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                accepted_type_0 = datetime.datetime.fromisoformat(data)

                return accepted_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        accepted = _parse_accepted(d.pop("accepted", UNSET))

        def _parse_cancelled(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancelled_type_0 = datetime.datetime.fromisoformat(data)

                return cancelled_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        cancelled = _parse_cancelled(d.pop("cancelled", UNSET))

        def _parse_delivered(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                delivered_type_0 = datetime.datetime.fromisoformat(data)

                return delivered_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        delivered = _parse_delivered(d.pop("delivered", UNSET))

        def _parse_failed(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                failed_type_0 = datetime.datetime.fromisoformat(data)

                return failed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        failed = _parse_failed(d.pop("failed", UNSET))

        def _parse_read(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                read_type_0 = datetime.datetime.fromisoformat(data)

                return read_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        read = _parse_read(d.pop("read", UNSET))

        def _parse_scheduled(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                scheduled_type_0 = datetime.datetime.fromisoformat(data)

                return scheduled_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        scheduled = _parse_scheduled(d.pop("scheduled", UNSET))

        def _parse_sent(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                sent_type_0 = datetime.datetime.fromisoformat(data)

                return sent_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        sent = _parse_sent(d.pop("sent", UNSET))

        def _parse_submitted(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_type_0 = datetime.datetime.fromisoformat(data)

                return submitted_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        submitted = _parse_submitted(d.pop("submitted", UNSET))

        timestamps_resource = cls(
            accepted=accepted,
            cancelled=cancelled,
            delivered=delivered,
            failed=failed,
            read=read,
            scheduled=scheduled,
            sent=sent,
            submitted=submitted,
        )

        timestamps_resource.additional_properties = d
        return timestamps_resource

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
