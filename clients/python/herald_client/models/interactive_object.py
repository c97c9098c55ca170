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


T = TypeVar("T", bound="InteractiveObject")


@_attrs_define
class InteractiveObject:
    """An interactive message (Meta's `interactive` object).

    Attributes:
        action (InteractiveActionObject): What the message asks: `buttons` (button), `button` + `sections` (list),
            `name` + `parameters` (cta_url,
            send_location, flow).
        type_ (str): `button`, `list`, `cta_url`, `location_request_message` or `flow`. Example: button.
        body (None | TextObject | Unset):
        footer (None | TextObject | Unset):
        header (InteractiveHeaderObject | None | Unset):
    """

    action: InteractiveActionObject
    type_: str
    body: None | TextObject | Unset = UNSET
    footer: None | TextObject | Unset = UNSET
    header: InteractiveHeaderObject | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.interactive_header_object import InteractiveHeaderObject  # noqa: PLC0415
        from ..models.text_object import TextObject  # noqa: PLC0415

        action = self.action.to_dict()

        type_ = self.type_

        body: dict[str, Any] | None | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        elif isinstance(self.body, TextObject):
            body = self.body.to_dict()
        else:
            body = self.body

        footer: dict[str, Any] | None | Unset
        if isinstance(self.footer, Unset):
            footer = UNSET
        elif isinstance(self.footer, TextObject):
            footer = self.footer.to_dict()
        else:
            footer = self.footer

        header: dict[str, Any] | None | Unset
        if isinstance(self.header, Unset):
            header = UNSET
        elif isinstance(self.header, InteractiveHeaderObject):
            header = self.header.to_dict()
        else:
            header = self.header

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "type": type_,
            }
        )
        if body is not UNSET:
            field_dict["body"] = body
        if footer is not UNSET:
            field_dict["footer"] = footer
        if header is not UNSET:
            field_dict["header"] = header

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.interactive_action_object import InteractiveActionObject  # noqa: PLC0415
        from ..models.interactive_header_object import InteractiveHeaderObject  # noqa: PLC0415
        from ..models.text_object import TextObject  # noqa: PLC0415

        d = dict(src_dict)
        action = InteractiveActionObject.from_dict(d.pop("action"))

        type_ = d.pop("type")

        def _parse_body(data: object) -> None | TextObject | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                body_type_1 = TextObject.from_dict(data)

                return body_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TextObject | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

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

        interactive_object = cls(
            action=action,
            type_=type_,
            body=body,
            footer=footer,
            header=header,
        )

        interactive_object.additional_properties = d
        return interactive_object

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
