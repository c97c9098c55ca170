from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.broadcast_resource_counts import BroadcastResourceCounts
    from ..models.pause_resource import PauseResource
    from ..models.template_ref_resource import TemplateRefResource


T = TypeVar("T", bound="BroadcastResource")


@_attrs_define
class BroadcastResource:
    """A broadcast and its progress.

    Example:
        {'cancelled_at': None, 'completed_at': None, 'counts': {'accepted': 1, 'cancelled': 0, 'delivered': 1, 'failed':
            0, 'read': 0, 'scheduled': 0, 'sent': 1, 'submitted': 0}, 'created_at': '2026-11-21T10:15:30.123Z', 'from':
            '+15550001111', 'id': 'brd_01JD0000000000000000000000', 'pause': None, 'released': 2, 'send_at': None, 'status':
            'running', 'template': {'language': 'en_US', 'name': 'order_shipped'}, 'total': 3, 'updated_at':
            '2026-11-21T10:15:31.500Z'}

    Attributes:
        counts (BroadcastResourceCounts): Its messages by status: every message status, `0` included.
        created_at (datetime.datetime):
        from_ (str): The sender number every message goes from. Example: +15550001111.
        id (str):  Example: brd_01JD0000000000000000000000.
        released (int): Messages released to dispatch so far.
        status (str): `scheduled`, `running`, `paused`, `completed`, `cancelling` (a cancel under way, or stopped half-
            way:
            a retried cancel finishes it) or `cancelled`. Example: running.
        template (TemplateRefResource): Names a template in one language.
        total (int): Messages accepted (the valid rows).
        updated_at (datetime.datetime):
        cancelled_at (datetime.datetime | None | Unset):
        completed_at (datetime.datetime | None | Unset):
        pause (None | PauseResource | Unset):
        send_at (datetime.datetime | None | Unset): When its messages are due; `null` for a broadcast sent at once.
    """

    counts: BroadcastResourceCounts
    created_at: datetime.datetime
    from_: str
    id: str
    released: int
    status: str
    template: TemplateRefResource
    total: int
    updated_at: datetime.datetime
    cancelled_at: datetime.datetime | None | Unset = UNSET
    completed_at: datetime.datetime | None | Unset = UNSET
    pause: None | PauseResource | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pause_resource import PauseResource  # noqa: PLC0415

        counts = self.counts.to_dict()

        created_at = self.created_at.isoformat()

        from_ = self.from_

        id = self.id

        released = self.released

        status = self.status

        template = self.template.to_dict()

        total = self.total

        updated_at = self.updated_at.isoformat()

        cancelled_at: None | str | Unset
        if isinstance(self.cancelled_at, Unset):
            cancelled_at = UNSET
        elif isinstance(self.cancelled_at, datetime.datetime):
            cancelled_at = self.cancelled_at.isoformat()
        else:
            cancelled_at = self.cancelled_at

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        pause: dict[str, Any] | None | Unset
        if isinstance(self.pause, Unset):
            pause = UNSET
        elif isinstance(self.pause, PauseResource):
            pause = self.pause.to_dict()
        else:
            pause = self.pause

        send_at: None | str | Unset
        if isinstance(self.send_at, Unset):
            send_at = UNSET
        elif isinstance(self.send_at, datetime.datetime):
            send_at = self.send_at.isoformat()
        else:
            send_at = self.send_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "counts": counts,
                "created_at": created_at,
                "from": from_,
                "id": id,
                "released": released,
                "status": status,
                "template": template,
                "total": total,
                "updated_at": updated_at,
            }
        )
        if cancelled_at is not UNSET:
            field_dict["cancelled_at"] = cancelled_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if pause is not UNSET:
            field_dict["pause"] = pause
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.broadcast_resource_counts import BroadcastResourceCounts  # noqa: PLC0415
        from ..models.pause_resource import PauseResource  # noqa: PLC0415
        from ..models.template_ref_resource import TemplateRefResource  # noqa: PLC0415

        d = dict(src_dict)
        counts = BroadcastResourceCounts.from_dict(d.pop("counts"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        from_ = d.pop("from")

        id = d.pop("id")

        released = d.pop("released")

        status = d.pop("status")

        template = TemplateRefResource.from_dict(d.pop("template"))

        total = d.pop("total")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_cancelled_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cancelled_at_type_0 = datetime.datetime.fromisoformat(data)

                return cancelled_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        cancelled_at = _parse_cancelled_at(d.pop("cancelled_at", UNSET))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_pause(data: object) -> None | PauseResource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pause_type_1 = PauseResource.from_dict(data)

                return pause_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PauseResource | Unset, data)

        pause = _parse_pause(d.pop("pause", UNSET))

        def _parse_send_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                send_at_type_0 = datetime.datetime.fromisoformat(data)

                return send_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        send_at = _parse_send_at(d.pop("send_at", UNSET))

        broadcast_resource = cls(
            counts=counts,
            created_at=created_at,
            from_=from_,
            id=id,
            released=released,
            status=status,
            template=template,
            total=total,
            updated_at=updated_at,
            cancelled_at=cancelled_at,
            completed_at=completed_at,
            pause=pause,
            send_at=send_at,
        )

        broadcast_resource.additional_properties = d
        return broadcast_resource

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
