from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.contact_address_object import ContactAddressObject
    from ..models.contact_email_object import ContactEmailObject
    from ..models.contact_name_object import ContactNameObject
    from ..models.contact_org_object import ContactOrgObject
    from ..models.contact_phone_object import ContactPhoneObject
    from ..models.contact_url_object import ContactUrlObject


T = TypeVar("T", bound="ContactObject")


@_attrs_define
class ContactObject:
    """A contact card (Meta's `contacts[i]`).

    Attributes:
        name (ContactNameObject): `formatted_name` and at least one other part.
        addresses (list[ContactAddressObject] | None | Unset):
        birthday (None | str | Unset): `YYYY-MM-DD`.
        emails (list[ContactEmailObject] | None | Unset):
        org (ContactOrgObject | None | Unset):
        phones (list[ContactPhoneObject] | None | Unset):
        urls (list[ContactUrlObject] | None | Unset):
    """

    name: ContactNameObject
    addresses: list[ContactAddressObject] | None | Unset = UNSET
    birthday: None | str | Unset = UNSET
    emails: list[ContactEmailObject] | None | Unset = UNSET
    org: ContactOrgObject | None | Unset = UNSET
    phones: list[ContactPhoneObject] | None | Unset = UNSET
    urls: list[ContactUrlObject] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.contact_org_object import ContactOrgObject  # noqa: PLC0415

        name = self.name.to_dict()

        addresses: list[dict[str, Any]] | None | Unset
        if isinstance(self.addresses, Unset):
            addresses = UNSET
        elif isinstance(self.addresses, list):
            addresses = []
            for addresses_type_0_item_data in self.addresses:
                addresses_type_0_item = addresses_type_0_item_data.to_dict()
                addresses.append(addresses_type_0_item)

        else:
            addresses = self.addresses

        birthday: None | str | Unset
        if isinstance(self.birthday, Unset):
            birthday = UNSET
        else:
            birthday = self.birthday

        emails: list[dict[str, Any]] | None | Unset
        if isinstance(self.emails, Unset):
            emails = UNSET
        elif isinstance(self.emails, list):
            emails = []
            for emails_type_0_item_data in self.emails:
                emails_type_0_item = emails_type_0_item_data.to_dict()
                emails.append(emails_type_0_item)

        else:
            emails = self.emails

        org: dict[str, Any] | None | Unset
        if isinstance(self.org, Unset):
            org = UNSET
        elif isinstance(self.org, ContactOrgObject):
            org = self.org.to_dict()
        else:
            org = self.org

        phones: list[dict[str, Any]] | None | Unset
        if isinstance(self.phones, Unset):
            phones = UNSET
        elif isinstance(self.phones, list):
            phones = []
            for phones_type_0_item_data in self.phones:
                phones_type_0_item = phones_type_0_item_data.to_dict()
                phones.append(phones_type_0_item)

        else:
            phones = self.phones

        urls: list[dict[str, Any]] | None | Unset
        if isinstance(self.urls, Unset):
            urls = UNSET
        elif isinstance(self.urls, list):
            urls = []
            for urls_type_0_item_data in self.urls:
                urls_type_0_item = urls_type_0_item_data.to_dict()
                urls.append(urls_type_0_item)

        else:
            urls = self.urls

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if addresses is not UNSET:
            field_dict["addresses"] = addresses
        if birthday is not UNSET:
            field_dict["birthday"] = birthday
        if emails is not UNSET:
            field_dict["emails"] = emails
        if org is not UNSET:
            field_dict["org"] = org
        if phones is not UNSET:
            field_dict["phones"] = phones
        if urls is not UNSET:
            field_dict["urls"] = urls

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.contact_address_object import ContactAddressObject  # noqa: PLC0415
        from ..models.contact_email_object import ContactEmailObject  # noqa: PLC0415
        from ..models.contact_name_object import ContactNameObject  # noqa: PLC0415
        from ..models.contact_org_object import ContactOrgObject  # noqa: PLC0415
        from ..models.contact_phone_object import ContactPhoneObject  # noqa: PLC0415
        from ..models.contact_url_object import ContactUrlObject  # noqa: PLC0415

        d = dict(src_dict)
        name = ContactNameObject.from_dict(d.pop("name"))

        def _parse_addresses(data: object) -> list[ContactAddressObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                addresses_type_0 = []
                _addresses_type_0 = data
                for addresses_type_0_item_data in _addresses_type_0:
                    addresses_type_0_item = ContactAddressObject.from_dict(addresses_type_0_item_data)

                    addresses_type_0.append(addresses_type_0_item)

                return addresses_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContactAddressObject] | None | Unset, data)

        addresses = _parse_addresses(d.pop("addresses", UNSET))

        def _parse_birthday(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        birthday = _parse_birthday(d.pop("birthday", UNSET))

        def _parse_emails(data: object) -> list[ContactEmailObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                emails_type_0 = []
                _emails_type_0 = data
                for emails_type_0_item_data in _emails_type_0:
                    emails_type_0_item = ContactEmailObject.from_dict(emails_type_0_item_data)

                    emails_type_0.append(emails_type_0_item)

                return emails_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContactEmailObject] | None | Unset, data)

        emails = _parse_emails(d.pop("emails", UNSET))

        def _parse_org(data: object) -> ContactOrgObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                org_type_1 = ContactOrgObject.from_dict(data)

                return org_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContactOrgObject | None | Unset, data)

        org = _parse_org(d.pop("org", UNSET))

        def _parse_phones(data: object) -> list[ContactPhoneObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                phones_type_0 = []
                _phones_type_0 = data
                for phones_type_0_item_data in _phones_type_0:
                    phones_type_0_item = ContactPhoneObject.from_dict(phones_type_0_item_data)

                    phones_type_0.append(phones_type_0_item)

                return phones_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContactPhoneObject] | None | Unset, data)

        phones = _parse_phones(d.pop("phones", UNSET))

        def _parse_urls(data: object) -> list[ContactUrlObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                urls_type_0 = []
                _urls_type_0 = data
                for urls_type_0_item_data in _urls_type_0:
                    urls_type_0_item = ContactUrlObject.from_dict(urls_type_0_item_data)

                    urls_type_0.append(urls_type_0_item)

                return urls_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ContactUrlObject] | None | Unset, data)

        urls = _parse_urls(d.pop("urls", UNSET))

        contact_object = cls(
            name=name,
            addresses=addresses,
            birthday=birthday,
            emails=emails,
            org=org,
            phones=phones,
            urls=urls,
        )

        contact_object.additional_properties = d
        return contact_object

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
