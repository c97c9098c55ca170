from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.broadcast_recipient_request import BroadcastRecipientRequest
    from ..models.header_variables_request import HeaderVariablesRequest
    from ..models.template_ref_request import TemplateRefRequest


T = TypeVar("T", bound="BroadcastRequest")


@_attrs_define
class BroadcastRequest:
    """`POST /api/v1/broadcasts`: one template to up to 10,000 recipients.

    Example:
        {'header': {'media_id': 'med_01JD0000000000000000000000', 'type': 'image'}, 'recipients': [{'client_reference':
            'order-1234', 'to': '+15551234567', 'variables': ['Ana', '#1234', 'Friday']}, {'to': '+15557654321',
            'variables': ['Bo', '#1235', 'Monday']}], 'send_at': '2026-12-01T09:00:00Z', 'template': {'language': 'en_US',
            'name': 'order_shipped'}}

    Attributes:
        recipients (list[BroadcastRecipientRequest]): 1 to 10,000 rows.
        template (TemplateRefRequest): The template to send.
        from_ (None | str | Unset): The sender number (E.164) when the organization has several.
        header (HeaderVariablesRequest | None | Unset):
        send_at (datetime.datetime | None | Unset): RFC 3339, from 1 minute to 35 days ahead: every message is
            `scheduled` until then.
    """

    recipients: list[BroadcastRecipientRequest]
    template: TemplateRefRequest
    from_: None | str | Unset = UNSET
    header: HeaderVariablesRequest | None | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.header_variables_request import HeaderVariablesRequest  # noqa: PLC0415

        recipients = []
        for recipients_item_data in self.recipients:
            recipients_item = recipients_item_data.to_dict()
            recipients.append(recipients_item)

        template = self.template.to_dict()

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        header: dict[str, Any] | None | Unset
        if isinstance(self.header, Unset):
            header = UNSET
        elif isinstance(self.header, HeaderVariablesRequest):
            header = self.header.to_dict()
        else:
            header = self.header

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
                "recipients": recipients,
                "template": template,
            }
        )
        if from_ is not UNSET:
            field_dict["from"] = from_
        if header is not UNSET:
            field_dict["header"] = header
        if send_at is not UNSET:
            field_dict["send_at"] = send_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.broadcast_recipient_request import BroadcastRecipientRequest  # noqa: PLC0415
        from ..models.header_variables_request import HeaderVariablesRequest  # noqa: PLC0415
        from ..models.template_ref_request import TemplateRefRequest  # noqa: PLC0415

        d = dict(src_dict)
        recipients = []
        _recipients = d.pop("recipients")
        for recipients_item_data in _recipients:
            recipients_item = BroadcastRecipientRequest.from_dict(recipients_item_data)

            recipients.append(recipients_item)

        template = TemplateRefRequest.from_dict(d.pop("template"))

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_header(data: object) -> HeaderVariablesRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                header_type_1 = HeaderVariablesRequest.from_dict(data)

                return header_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeaderVariablesRequest | None | Unset, data)

        header = _parse_header(d.pop("header", UNSET))

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

        broadcast_request = cls(
            recipients=recipients,
            template=template,
            from_=from_,
            header=header,
            send_at=send_at,
        )

        broadcast_request.additional_properties = d
        return broadcast_request

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
