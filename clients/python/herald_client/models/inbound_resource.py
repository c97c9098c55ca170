from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.source_field_name import SourceFieldName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.inbound_context_resource import InboundContextResource
    from ..models.inbound_resource_reaction_type_0 import InboundResourceReactionType0
    from ..models.inbound_resource_referral_type_0 import InboundResourceReferralType0
    from ..models.inbound_resource_text_type_0 import InboundResourceTextType0


T = TypeVar("T", bound="InboundResource")


@_attrs_define
class InboundResource:
    """A message a customer sent to one of the organization's numbers. Besides the fields below it carries
    exactly one object of its kind, as in the `message.inbound` event: `text`, `media` (image, video,
    document, audio with `voice`, sticker with `animated`), `location`, `contacts`, `reaction`,
    `interactive` (`button_reply`, `list_reply`, `nfm_reply`), `button`, `order`, `system`, or `raw`
    (an unsupported or unknown kind, the network's object as it came).

        Attributes:
            echo (bool): `true` for an echo: a message the business side sent the customer outside Herald (the WhatsApp
                Business app, or the app holding the conversation), copied to Herald. `from` is then the customer it
                went to; an echo opens no service window and never counts as a STOP keyword.
            from_ (str): The customer's number; their business-scoped user id when the network hid the number (a user who
                chose a username) and no earlier message paired that id with a number. Example: +15551234567.
            id (str):  Example: inb_01JD0000000000000000000000.
            received_at (datetime.datetime):
            source_field (SourceFieldName): The webhook fields an inbound message can come on.
            to (str): The business number that received it. Example: +15550001111.
            type_ (str): The network's type: `text`, `image`, `video`, `document`, `audio`, `sticker`, `location`,
                `contacts`, `reaction`, `interactive`, `button`, `order`, `system`, `unsupported`, … Example: text.
            context (InboundContextResource | None | Unset):
            from_name (None | str | Unset): The customer's profile name, when the network gave one.
            from_user_id (None | str | Unset): The customer's business-scoped user id, when the network sent one. Example:
                US.13491208655302741918.
            reaction (InboundResourceReactionType0 | None | Unset): A reaction: `{ "message_id": "msg_…"|"inb_…"|null,
                "network_message_id", "emoji" }`; an empty
                emoji removes the reaction.
            read_at (datetime.datetime | None | Unset): When the business marked it read (`POST /api/v1/inbound/{id}/read`).
            referral (InboundResourceReferralType0 | None | Unset): The ad or post a click-to-WhatsApp message came from, as
                the network sent it.
            text (InboundResourceTextType0 | None | Unset): The text of a `text` message (the other kinds carry their own
                object instead).
    """

    echo: bool
    from_: str
    id: str
    received_at: datetime.datetime
    source_field: SourceFieldName
    to: str
    type_: str
    context: InboundContextResource | None | Unset = UNSET
    from_name: None | str | Unset = UNSET
    from_user_id: None | str | Unset = UNSET
    reaction: InboundResourceReactionType0 | None | Unset = UNSET
    read_at: datetime.datetime | None | Unset = UNSET
    referral: InboundResourceReferralType0 | None | Unset = UNSET
    text: InboundResourceTextType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.inbound_context_resource import InboundContextResource  # noqa: PLC0415
        from ..models.inbound_resource_reaction_type_0 import InboundResourceReactionType0  # noqa: PLC0415
        from ..models.inbound_resource_referral_type_0 import InboundResourceReferralType0  # noqa: PLC0415
        from ..models.inbound_resource_text_type_0 import InboundResourceTextType0  # noqa: PLC0415

        echo = self.echo

        from_ = self.from_

        id = self.id

        received_at = self.received_at.isoformat()

        source_field = self.source_field.value

        to = self.to

        type_ = self.type_

        context: dict[str, Any] | None | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        elif isinstance(self.context, InboundContextResource):
            context = self.context.to_dict()
        else:
            context = self.context

        from_name: None | str | Unset
        if isinstance(self.from_name, Unset):
            from_name = UNSET
        else:
            from_name = self.from_name

        from_user_id: None | str | Unset
        if isinstance(self.from_user_id, Unset):
            from_user_id = UNSET
        else:
            from_user_id = self.from_user_id

        reaction: dict[str, Any] | None | Unset
        if isinstance(self.reaction, Unset):
            reaction = UNSET
        elif isinstance(self.reaction, InboundResourceReactionType0):
            reaction = self.reaction.to_dict()
        else:
            reaction = self.reaction

        read_at: None | str | Unset
        if isinstance(self.read_at, Unset):
            read_at = UNSET
        elif isinstance(self.read_at, datetime.datetime):
            read_at = self.read_at.isoformat()
        else:
            read_at = self.read_at

        referral: dict[str, Any] | None | Unset
        if isinstance(self.referral, Unset):
            referral = UNSET
        elif isinstance(self.referral, InboundResourceReferralType0):
            referral = self.referral.to_dict()
        else:
            referral = self.referral

        text: dict[str, Any] | None | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        elif isinstance(self.text, InboundResourceTextType0):
            text = self.text.to_dict()
        else:
            text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "echo": echo,
                "from": from_,
                "id": id,
                "received_at": received_at,
                "source_field": source_field,
                "to": to,
                "type": type_,
            }
        )
        if context is not UNSET:
            field_dict["context"] = context
        if from_name is not UNSET:
            field_dict["from_name"] = from_name
        if from_user_id is not UNSET:
            field_dict["from_user_id"] = from_user_id
        if reaction is not UNSET:
            field_dict["reaction"] = reaction
        if read_at is not UNSET:
            field_dict["read_at"] = read_at
        if referral is not UNSET:
            field_dict["referral"] = referral
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.inbound_context_resource import InboundContextResource  # noqa: PLC0415
        from ..models.inbound_resource_reaction_type_0 import InboundResourceReactionType0  # noqa: PLC0415
        from ..models.inbound_resource_referral_type_0 import InboundResourceReferralType0  # noqa: PLC0415
        from ..models.inbound_resource_text_type_0 import InboundResourceTextType0  # noqa: PLC0415

        d = dict(src_dict)
        echo = d.pop("echo")

        from_ = d.pop("from")

        id = d.pop("id")

        received_at = datetime.datetime.fromisoformat(d.pop("received_at"))

        source_field = SourceFieldName(d.pop("source_field"))

        to = d.pop("to")

        type_ = d.pop("type")

        def _parse_context(data: object) -> InboundContextResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                context_type_1 = InboundContextResource.from_dict(data)

                return context_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InboundContextResource | None | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_from_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_name = _parse_from_name(d.pop("from_name", UNSET))

        def _parse_from_user_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_user_id = _parse_from_user_id(d.pop("from_user_id", UNSET))

        def _parse_reaction(data: object) -> InboundResourceReactionType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reaction_type_0 = InboundResourceReactionType0.from_dict(data)

                return reaction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InboundResourceReactionType0 | None | Unset, data)

        reaction = _parse_reaction(d.pop("reaction", UNSET))

        def _parse_read_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                read_at_type_0 = datetime.datetime.fromisoformat(data)

                return read_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        read_at = _parse_read_at(d.pop("read_at", UNSET))

        def _parse_referral(data: object) -> InboundResourceReferralType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                referral_type_0 = InboundResourceReferralType0.from_dict(data)

                return referral_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InboundResourceReferralType0 | None | Unset, data)

        referral = _parse_referral(d.pop("referral", UNSET))

        def _parse_text(data: object) -> InboundResourceTextType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                text_type_0 = InboundResourceTextType0.from_dict(data)

                return text_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InboundResourceTextType0 | None | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        inbound_resource = cls(
            echo=echo,
            from_=from_,
            id=id,
            received_at=received_at,
            source_field=source_field,
            to=to,
            type_=type_,
            context=context,
            from_name=from_name,
            from_user_id=from_user_id,
            reaction=reaction,
            read_at=read_at,
            referral=referral,
            text=text,
        )

        inbound_resource.additional_properties = d
        return inbound_resource

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
