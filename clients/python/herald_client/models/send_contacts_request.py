from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_object import ContactObject


T = TypeVar("T", bound="SendContactsRequest")


@_attrs_define
class SendContactsRequest:
    """`POST /api/v1/messages/send-contacts`.

    Example:
        {'contacts': [{'name': {'first_name': 'Ana', 'formatted_name': 'Ana Díaz'}, 'phones': [{'phone': '+15550001111',
            'type': 'WORK'}]}], 'to': '+15551234567'}

    Attributes:
        contacts (list[ContactObject]): 1 to 20 cards.
        to (str):
        client_reference (None | str | Unset):
        from_ (None | str | Unset):
        reply_to (None | str | Unset):
    """

    contacts: list[ContactObject]
    to: str
    client_reference: None | str | Unset = UNSET
    from_: None | str | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        contacts = []
        for contacts_item_data in self.contacts:
            contacts_item = contacts_item_data.to_dict()
            contacts.append(contacts_item)

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

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "contacts": contacts,
                "to": to,
            }
        )
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if from_ is not UNSET:
            field_dict["from"] = from_
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.contact_object import ContactObject  # noqa: PLC0415

        d = dict(src_dict)
        contacts = []
        _contacts = d.pop("contacts")
        for contacts_item_data in _contacts:
            contacts_item = ContactObject.from_dict(contacts_item_data)

            contacts.append(contacts_item)

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

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        send_contacts_request = cls(
            contacts=contacts,
            to=to,
            client_reference=client_reference,
            from_=from_,
            reply_to=reply_to,
        )

        send_contacts_request.additional_properties = d
        return send_contacts_request

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
