from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.interactive_action_object import InteractiveActionObject
    from ..models.interactive_header_object import InteractiveHeaderObject
    from ..models.text_object import TextObject


T = TypeVar("T", bound="SendInteractiveRequest")


@_attrs_define
class SendInteractiveRequest:
    """`POST /api/v1/messages/send-interactive`: Meta's `interactive` object at the top level, with `to`.

    Example:
        {'action': {'buttons': [{'reply': {'id': 'yes', 'title': 'Yes'}, 'type': 'reply'}, {'reply': {'id': 'no',
            'title': 'No'}, 'type': 'reply'}]}, 'body': {'text': 'Did the parcel arrive?'}, 'to': '+15551234567', 'type':
            'button'}

    Attributes:
        action (InteractiveActionObject): What the message asks: `buttons` (button), `button` + `sections` (list),
            `name` + `parameters` (cta_url,
            send_location, flow).
        body (TextObject): `{"text": …}`.
        to (str):
        type_ (str): `button`, `list`, `cta_url`, `location_request_message` or `flow`.
        client_reference (None | str | Unset):
        footer (None | TextObject | Unset):
        from_ (None | str | Unset):
        header (InteractiveHeaderObject | None | Unset):
        reply_to (None | str | Unset): A `msg_…` or `inb_…` id of this conversation.
    """

    action: InteractiveActionObject
    body: TextObject
    to: str
    type_: str
    client_reference: None | str | Unset = UNSET
    footer: None | TextObject | Unset = UNSET
    from_: None | str | Unset = UNSET
    header: InteractiveHeaderObject | None | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.interactive_header_object import InteractiveHeaderObject  # noqa: PLC0415
        from ..models.text_object import TextObject  # noqa: PLC0415

        action = self.action.to_dict()

        body = self.body.to_dict()

        to = self.to

        type_ = self.type_

        client_reference: None | str | Unset
        if isinstance(self.client_reference, Unset):
            client_reference = UNSET
        else:
            client_reference = self.client_reference

        footer: dict[str, Any] | None | Unset
        if isinstance(self.footer, Unset):
            footer = UNSET
        elif isinstance(self.footer, TextObject):
            footer = self.footer.to_dict()
        else:
            footer = self.footer

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        header: dict[str, Any] | None | Unset
        if isinstance(self.header, Unset):
            header = UNSET
        elif isinstance(self.header, InteractiveHeaderObject):
            header = self.header.to_dict()
        else:
            header = self.header

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "body": body,
                "to": to,
                "type": type_,
            }
        )
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if footer is not UNSET:
            field_dict["footer"] = footer
        if from_ is not UNSET:
            field_dict["from"] = from_
        if header is not UNSET:
            field_dict["header"] = header
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.interactive_action_object import InteractiveActionObject  # noqa: PLC0415
        from ..models.interactive_header_object import InteractiveHeaderObject  # noqa: PLC0415
        from ..models.text_object import TextObject  # noqa: PLC0415

        d = dict(src_dict)
        action = InteractiveActionObject.from_dict(d.pop("action"))

        body = TextObject.from_dict(d.pop("body"))

        to = d.pop("to")

        type_ = d.pop("type")

        def _parse_client_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_reference = _parse_client_reference(d.pop("client_reference", UNSET))

        def _parse_footer(data: object) -> None | TextObject | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                footer_type_1 = TextObject.from_dict(data)

                return footer_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TextObject | Unset, data)

        footer = _parse_footer(d.pop("footer", UNSET))

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_header(data: object) -> InteractiveHeaderObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                header_type_1 = InteractiveHeaderObject.from_dict(data)

                return header_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InteractiveHeaderObject | None | Unset, data)

        header = _parse_header(d.pop("header", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        send_interactive_request = cls(
            action=action,
            body=body,
            to=to,
            type_=type_,
            client_reference=client_reference,
            footer=footer,
            from_=from_,
            header=header,
            reply_to=reply_to,
        )

        send_interactive_request.additional_properties = d
        return send_interactive_request

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
