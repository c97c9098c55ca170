from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SendTextRequest")


@_attrs_define
class SendTextRequest:
    """`POST /api/v1/messages/send-text`, and the text form of send-template.

    Example:
        {'message': 'Hi', 'preview_url': False, 'to': '+15551234567'}

    Attributes:
        message (str): 1 to 4096 characters.
        to (str): E.164 (`+` then 8 to 15 digits, the first not 0) or a business-scoped user id (`US.1349…`).
        client_reference (None | str | Unset): Your own id, up to 128 characters, echoed in the resource and every
            event.
        from_ (None | str | Unset): The sender number (E.164) when the organization has several.
        preview_url (bool | None | Unset):
        reply_to (None | str | Unset): The message of the conversation this one replies to: a `msg_…` or `inb_…` id
            (sent as Meta's
            `context`).
        type_ (None | str | Unset): Leave out, or `text`.
    """

    message: str
    to: str
    client_reference: None | str | Unset = UNSET
    from_: None | str | Unset = UNSET
    preview_url: bool | None | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    type_: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        to = self.to

        client_reference: None | str | Unset
        if isinstance(self.client_reference, Unset):
            client_reference = UNSET
        else:
            client_reference = self.client_reference

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        preview_url: bool | None | Unset
        if isinstance(self.preview_url, Unset):
            preview_url = UNSET
        else:
            preview_url = self.preview_url

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "to": to,
            }
        )
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if from_ is not UNSET:
            field_dict["from"] = from_
        if preview_url is not UNSET:
            field_dict["preview_url"] = preview_url
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message = d.pop("message")

        to = d.pop("to")

        def _parse_client_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_reference = _parse_client_reference(d.pop("client_reference", UNSET))

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_preview_url(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        preview_url = _parse_preview_url(d.pop("preview_url", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        send_text_request = cls(
            message=message,
            to=to,
            client_reference=client_reference,
            from_=from_,
            preview_url=preview_url,
            reply_to=reply_to,
            type_=type_,
        )

        send_text_request.additional_properties = d
        return send_text_request

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
