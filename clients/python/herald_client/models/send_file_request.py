from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SendFileRequest")


@_attrs_define
class SendFileRequest:
    """`POST /api/v1/messages/send-file` with a JSON body: a file uploaded before or hosted elsewhere.

    Example:
        {'caption': 'Your invoice', 'media_id': 'med_01JD0000000000000000000000', 'to': '+15551234567'}

    Attributes:
        to (str): E.164 (`+` then 8 to 15 digits, the first not 0) or a business-scoped user id (`US.1349…`).
        caption (None | str | Unset): 1 to 1024 characters; not for audio or stickers.
        client_reference (None | str | Unset): Your own id, up to 128 characters, echoed in the resource and every
            event.
        filename (None | str | Unset): Documents only: the name the recipient sees (default: the upload's file name).
        from_ (None | str | Unset): The sender number (E.164) when the organization has several.
        link (None | str | Unset): An absolute `https://` URL the network fetches itself. Either this or `media_id`.
        media_id (None | str | Unset): An upload of this organization (`POST /api/v1/media`); its kind is the upload's.
            Either this or
            `link`.
        reply_to (None | str | Unset): The message of the conversation this one replies to: a `msg_…` or `inb_…` id
            (sent as Meta's
            `context`).
        type_ (None | str | Unset): `document`, `image`, `video`, `audio` or `sticker`: required with `link`; with
            `media_id`, the
            upload's kind.
    """

    to: str
    caption: None | str | Unset = UNSET
    client_reference: None | str | Unset = UNSET
    filename: None | str | Unset = UNSET
    from_: None | str | Unset = UNSET
    link: None | str | Unset = UNSET
    media_id: None | str | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    type_: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        to = self.to

        caption: None | str | Unset
        if isinstance(self.caption, Unset):
            caption = UNSET
        else:
            caption = self.caption

        client_reference: None | str | Unset
        if isinstance(self.client_reference, Unset):
            client_reference = UNSET
        else:
            client_reference = self.client_reference

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        link: None | str | Unset
        if isinstance(self.link, Unset):
            link = UNSET
        else:
            link = self.link

        media_id: None | str | Unset
        if isinstance(self.media_id, Unset):
            media_id = UNSET
        else:
            media_id = self.media_id

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
                "to": to,
            }
        )
        if caption is not UNSET:
            field_dict["caption"] = caption
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if filename is not UNSET:
            field_dict["filename"] = filename
        if from_ is not UNSET:
            field_dict["from"] = from_
        if link is not UNSET:
            field_dict["link"] = link
        if media_id is not UNSET:
            field_dict["media_id"] = media_id
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        to = d.pop("to")

        def _parse_caption(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        caption = _parse_caption(d.pop("caption", UNSET))

        def _parse_client_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_reference = _parse_client_reference(d.pop("client_reference", UNSET))

        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filename = _parse_filename(d.pop("filename", UNSET))

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_link(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        link = _parse_link(d.pop("link", UNSET))

        def _parse_media_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        media_id = _parse_media_id(d.pop("media_id", UNSET))

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

        send_file_request = cls(
            to=to,
            caption=caption,
            client_reference=client_reference,
            filename=filename,
            from_=from_,
            link=link,
            media_id=media_id,
            reply_to=reply_to,
            type_=type_,
        )

        send_file_request.additional_properties = d
        return send_file_request

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
