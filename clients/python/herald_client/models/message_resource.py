from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_object import ContactObject
    from ..models.cost_resource import CostResource
    from ..models.interactive_object import InteractiveObject
    from ..models.location_object import LocationObject
    from ..models.media_resource import MediaResource
    from ..models.message_error_resource import MessageErrorResource
    from ..models.pricing_resource import PricingResource
    from ..models.reaction_resource import ReactionResource
    from ..models.template_ref_resource import TemplateRefResource
    from ..models.timestamps_resource import TimestampsResource


T = TypeVar("T", bound="MessageResource")


@_attrs_define
class MessageResource:
    """A message and where it stands (docs/api.md §5).

    Attributes:
        created_at (datetime.datetime):
        from_ (str):  Example: +15550001111.
        id (str):  Example: msg_01JD0000000000000000000000.
        status (str): `scheduled`, `accepted`, `submitted`, `sent`, `delivered`, `read`, `failed` or `cancelled`.
            Example: accepted.
        timestamps (TimestampsResource): When each status was reached.
        to (str): The recipient as the send named it: an E.164 number or a business-scoped user id. Example:
            +15551234567.
        type_ (str): `text`, `template`, `document`, `image`, `video`, `audio`, `sticker`, `interactive`, `reaction`,
            `location` or `contacts`. Example: template.
        updated_at (datetime.datetime):
        broadcast_id (None | str | Unset): The broadcast it belongs to (`brd_…`); `null` for a single send.
        caption (None | str | Unset):
        client_reference (None | str | Unset):
        contacts (list[ContactObject] | None | Unset):
        error (MessageErrorResource | None | Unset):
        estimated_cost (CostResource | None | Unset):
        interactive (InteractiveObject | None | Unset):
        location (LocationObject | None | Unset):
        marketing_route (None | str | Unset): A marketing template's send path as asked (`auto`, `cloud_api` or
            `marketing_messages`, docs/api.md
            §4.11); `null` for every other message, which goes on the Cloud API.
        media (MediaResource | None | Unset):
        network_message_id (None | str | Unset): The network's id (`wamid…`) once submitted.
        pricing (None | PricingResource | Unset):
        reaction (None | ReactionResource | Unset):
        reply_to (None | str | Unset): The message of the conversation this one replies to (`msg_…` or `inb_…`).
        route (None | str | Unset): The path the message went out on once submitted: `cloud_api` or
            `marketing_messages`.
        send_at (datetime.datetime | None | Unset): When a scheduled message is (or was) due to be sent; `null` for a
            message sent at once.
        template (None | TemplateRefResource | Unset):
        text (None | str | Unset): The body of a text message.
    """

    created_at: datetime.datetime
    from_: str
    id: str
    status: str
    timestamps: TimestampsResource
    to: str
    type_: str
    updated_at: datetime.datetime
    broadcast_id: None | str | Unset = UNSET
    caption: None | str | Unset = UNSET
    client_reference: None | str | Unset = UNSET
    contacts: list[ContactObject] | None | Unset = UNSET
    error: MessageErrorResource | None | Unset = UNSET
    estimated_cost: CostResource | None | Unset = UNSET
    interactive: InteractiveObject | None | Unset = UNSET
    location: LocationObject | None | Unset = UNSET
    marketing_route: None | str | Unset = UNSET
    media: MediaResource | None | Unset = UNSET
    network_message_id: None | str | Unset = UNSET
    pricing: None | PricingResource | Unset = UNSET
    reaction: None | ReactionResource | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    route: None | str | Unset = UNSET
    send_at: datetime.datetime | None | Unset = UNSET
    template: None | TemplateRefResource | Unset = UNSET
    text: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cost_resource import CostResource  # noqa: PLC0415
        from ..models.interactive_object import InteractiveObject  # noqa: PLC0415
        from ..models.location_object import LocationObject  # noqa: PLC0415
        from ..models.media_resource import MediaResource  # noqa: PLC0415
        from ..models.message_error_resource import MessageErrorResource  # noqa: PLC0415
        from ..models.pricing_resource import PricingResource  # noqa: PLC0415
        from ..models.reaction_resource import ReactionResource  # noqa: PLC0415
        from ..models.template_ref_resource import TemplateRefResource  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        from_ = self.from_

        id = self.id

        status = self.status

        timestamps = self.timestamps.to_dict()

        to = self.to

        type_ = self.type_

        updated_at = self.updated_at.isoformat()

        broadcast_id: None | str | Unset
        if isinstance(self.broadcast_id, Unset):
            broadcast_id = UNSET
        else:
            broadcast_id = self.broadcast_id

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

        contacts: list[dict[str, Any]] | None | Unset
        if isinstance(self.contacts, Unset):
            contacts = UNSET
        elif isinstance(self.contacts, list):
            contacts = []
            for contacts_type_0_item_data in self.contacts:
                contacts_type_0_item = contacts_type_0_item_data.to_dict()
                contacts.append(contacts_type_0_item)

        else:
            contacts = self.contacts

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, MessageErrorResource):
            error = self.error.to_dict()
        else:
            error = self.error

        estimated_cost: dict[str, Any] | None | Unset
        if isinstance(self.estimated_cost, Unset):
            estimated_cost = UNSET
        elif isinstance(self.estimated_cost, CostResource):
            estimated_cost = self.estimated_cost.to_dict()
        else:
            estimated_cost = self.estimated_cost

        interactive: dict[str, Any] | None | Unset
        if isinstance(self.interactive, Unset):
            interactive = UNSET
        elif isinstance(self.interactive, InteractiveObject):
            interactive = self.interactive.to_dict()
        else:
            interactive = self.interactive

        location: dict[str, Any] | None | Unset
        if isinstance(self.location, Unset):
            location = UNSET
        elif isinstance(self.location, LocationObject):
            location = self.location.to_dict()
        else:
            location = self.location

        marketing_route: None | str | Unset
        if isinstance(self.marketing_route, Unset):
            marketing_route = UNSET
        else:
            marketing_route = self.marketing_route

        media: dict[str, Any] | None | Unset
        if isinstance(self.media, Unset):
            media = UNSET
        elif isinstance(self.media, MediaResource):
            media = self.media.to_dict()
        else:
            media = self.media

        network_message_id: None | str | Unset
        if isinstance(self.network_message_id, Unset):
            network_message_id = UNSET
        else:
            network_message_id = self.network_message_id

        pricing: dict[str, Any] | None | Unset
        if isinstance(self.pricing, Unset):
            pricing = UNSET
        elif isinstance(self.pricing, PricingResource):
            pricing = self.pricing.to_dict()
        else:
            pricing = self.pricing

        reaction: dict[str, Any] | None | Unset
        if isinstance(self.reaction, Unset):
            reaction = UNSET
        elif isinstance(self.reaction, ReactionResource):
            reaction = self.reaction.to_dict()
        else:
            reaction = self.reaction

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        route: None | str | Unset
        if isinstance(self.route, Unset):
            route = UNSET
        else:
            route = self.route

        send_at: None | str | Unset
        if isinstance(self.send_at, Unset):
            send_at = UNSET
        elif isinstance(self.send_at, datetime.datetime):
            send_at = self.send_at.isoformat()
        else:
            send_at = self.send_at

        template: dict[str, Any] | None | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        elif isinstance(self.template, TemplateRefResource):
            template = self.template.to_dict()
        else:
            template = self.template

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "from": from_,
                "id": id,
                "status": status,
                "timestamps": timestamps,
                "to": to,
                "type": type_,
                "updated_at": updated_at,
            }
        )
        if broadcast_id is not UNSET:
            field_dict["broadcast_id"] = broadcast_id
        if caption is not UNSET:
            field_dict["caption"] = caption
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if contacts is not UNSET:
            field_dict["contacts"] = contacts
        if error is not UNSET:
            field_dict["error"] = error
        if estimated_cost is not UNSET:
            field_dict["estimated_cost"] = estimated_cost
        if interactive is not UNSET:
            field_dict["interactive"] = interactive
        if location is not UNSET:
            field_dict["location"] = location
        if marketing_route is not UNSET:
            field_dict["marketing_route"] = marketing_route
        if media is not UNSET:
            field_dict["media"] = media
        if network_message_id is not UNSET:
            field_dict["network_message_id"] = network_message_id
        if pricing is not UNSET:
            field_dict["pricing"] = pricing
        if reaction is not UNSET:
            field_dict["reaction"] = reaction
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if route is not UNSET:
            field_dict["route"] = route
        if send_at is not UNSET:
            field_dict["send_at"] = send_at
        if template is not UNSET:
            field_dict["template"] = template
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.contact_object import ContactObject  # noqa: PLC0415
        from ..models.cost_resource import CostResource  # noqa: PLC0415
        from ..models.interactive_object import InteractiveObject  # noqa: PLC0415
        from ..models.location_object import LocationObject  # noqa: PLC0415
        from ..models.media_resource import MediaResource  # noqa: PLC0415
        from ..models.message_error_resource import MessageErrorResource  # noqa: PLC0415
        from ..models.pricing_resource import PricingResource  # noqa: PLC0415
        from ..models.reaction_resource import ReactionResource  # noqa: PLC0415
        from ..models.template_ref_resource import TemplateRefResource  # noqa: PLC0415
        from ..models.timestamps_resource import TimestampsResource  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        from_ = d.pop("from")

        id = d.pop("id")

        status = d.pop("status")

        timestamps = TimestampsResource.from_dict(d.pop("timestamps"))

        to = d.pop("to")

        type_ = d.pop("type")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_broadcast_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        broadcast_id = _parse_broadcast_id(d.pop("broadcast_id", UNSET))

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

        def _parse_contacts(data: object) -> list[ContactObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                contacts_type_0 = []
                _contacts_type_0 = data
                for contacts_type_0_item_data in _contacts_type_0:
                    contacts_type_0_item = ContactObject.from_dict(contacts_type_0_item_data)

                    contacts_type_0.append(contacts_type_0_item)

                return contacts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContactObject] | None | Unset, data)

        contacts = _parse_contacts(d.pop("contacts", UNSET))

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

        def _parse_estimated_cost(data: object) -> CostResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimated_cost_type_1 = CostResource.from_dict(data)

                return estimated_cost_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostResource | None | Unset, data)

        estimated_cost = _parse_estimated_cost(d.pop("estimated_cost", UNSET))

        def _parse_interactive(data: object) -> InteractiveObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                interactive_type_1 = InteractiveObject.from_dict(data)

                return interactive_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(InteractiveObject | None | Unset, data)

        interactive = _parse_interactive(d.pop("interactive", UNSET))

        def _parse_location(data: object) -> LocationObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                location_type_1 = LocationObject.from_dict(data)

                return location_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LocationObject | None | Unset, data)

        location = _parse_location(d.pop("location", UNSET))

        def _parse_marketing_route(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        marketing_route = _parse_marketing_route(d.pop("marketing_route", UNSET))

        def _parse_media(data: object) -> MediaResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                media_type_1 = MediaResource.from_dict(data)

                return media_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MediaResource | None | Unset, data)

        media = _parse_media(d.pop("media", UNSET))

        def _parse_network_message_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        network_message_id = _parse_network_message_id(d.pop("network_message_id", UNSET))

        def _parse_pricing(data: object) -> None | PricingResource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pricing_type_1 = PricingResource.from_dict(data)

                return pricing_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PricingResource | Unset, data)

        pricing = _parse_pricing(d.pop("pricing", UNSET))

        def _parse_reaction(data: object) -> None | ReactionResource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reaction_type_1 = ReactionResource.from_dict(data)

                return reaction_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReactionResource | Unset, data)

        reaction = _parse_reaction(d.pop("reaction", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        def _parse_route(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        route = _parse_route(d.pop("route", UNSET))

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

        def _parse_template(data: object) -> None | TemplateRefResource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                template_type_1 = TemplateRefResource.from_dict(data)

                return template_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateRefResource | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        message_resource = cls(
            created_at=created_at,
            from_=from_,
            id=id,
            status=status,
            timestamps=timestamps,
            to=to,
            type_=type_,
            updated_at=updated_at,
            broadcast_id=broadcast_id,
            caption=caption,
            client_reference=client_reference,
            contacts=contacts,
            error=error,
            estimated_cost=estimated_cost,
            interactive=interactive,
            location=location,
            marketing_route=marketing_route,
            media=media,
            network_message_id=network_message_id,
            pricing=pricing,
            reaction=reaction,
            reply_to=reply_to,
            route=route,
            send_at=send_at,
            template=template,
            text=text,
        )

        message_resource.additional_properties = d
        return message_resource

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
