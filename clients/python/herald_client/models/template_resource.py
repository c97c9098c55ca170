from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_body_resource import TemplateBodyResource
    from ..models.template_button_resource import TemplateButtonResource
    from ..models.template_header_resource import TemplateHeaderResource


T = TypeVar("T", bound="TemplateResource")


@_attrs_define
class TemplateResource:
    """A template as last synced from the network, with what a send must fill.

    Attributes:
        body (TemplateBodyResource): The body's variables.
        buttons (list[TemplateButtonResource]):
        category (str):
        header (TemplateHeaderResource): The header's format and whether a send supplies a parameter for it.
        language (str):
        name (str):
        status (str): The network's status: `APPROVED`, `PENDING`, `REJECTED`, `PAUSED`, `DISABLED`, …
        synced_at (datetime.datetime):
        quality (None | str | Unset): The network's quality rating: `GREEN`, `YELLOW`, `RED` or `UNKNOWN`; `null` until
            rated. Example: GREEN.
        rejected_reason (None | str | Unset): Why the network rejected it (`INVALID_FORMAT`, …); `null` unless
            `REJECTED`.
        updated_at (datetime.datetime | None | Unset): When Herald's copy last changed (a sync that found it changed, or
            a template event).
    """

    body: TemplateBodyResource
    buttons: list[TemplateButtonResource]
    category: str
    header: TemplateHeaderResource
    language: str
    name: str
    status: str
    synced_at: datetime.datetime
    quality: None | str | Unset = UNSET
    rejected_reason: None | str | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        body = self.body.to_dict()

        buttons = []
        for buttons_item_data in self.buttons:
            buttons_item = buttons_item_data.to_dict()
            buttons.append(buttons_item)

        category = self.category

        header = self.header.to_dict()

        language = self.language

        name = self.name

        status = self.status

        synced_at = self.synced_at.isoformat()

        quality: None | str | Unset
        if isinstance(self.quality, Unset):
            quality = UNSET
        else:
            quality = self.quality

        rejected_reason: None | str | Unset
        if isinstance(self.rejected_reason, Unset):
            rejected_reason = UNSET
        else:
            rejected_reason = self.rejected_reason

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "body": body,
                "buttons": buttons,
                "category": category,
                "header": header,
                "language": language,
                "name": name,
                "status": status,
                "synced_at": synced_at,
            }
        )
        if quality is not UNSET:
            field_dict["quality"] = quality
        if rejected_reason is not UNSET:
            field_dict["rejected_reason"] = rejected_reason
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_body_resource import TemplateBodyResource  # noqa: PLC0415
        from ..models.template_button_resource import TemplateButtonResource  # noqa: PLC0415
        from ..models.template_header_resource import TemplateHeaderResource  # noqa: PLC0415

        d = dict(src_dict)
        body = TemplateBodyResource.from_dict(d.pop("body"))

        buttons = []
        _buttons = d.pop("buttons")
        for buttons_item_data in _buttons:
            buttons_item = TemplateButtonResource.from_dict(buttons_item_data)

            buttons.append(buttons_item)

        category = d.pop("category")

        header = TemplateHeaderResource.from_dict(d.pop("header"))

        language = d.pop("language")

        name = d.pop("name")

        status = d.pop("status")

        synced_at = datetime.datetime.fromisoformat(d.pop("synced_at"))

        def _parse_quality(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        quality = _parse_quality(d.pop("quality", UNSET))

        def _parse_rejected_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rejected_reason = _parse_rejected_reason(d.pop("rejected_reason", UNSET))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updated_at", UNSET))

        template_resource = cls(
            body=body,
            buttons=buttons,
            category=category,
            header=header,
            language=language,
            name=name,
            status=status,
            synced_at=synced_at,
            quality=quality,
            rejected_reason=rejected_reason,
            updated_at=updated_at,
        )

        template_resource.additional_properties = d
        return template_resource

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
