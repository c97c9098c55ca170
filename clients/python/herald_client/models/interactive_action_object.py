from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.action_parameters_object import ActionParametersObject
    from ..models.reply_button_object import ReplyButtonObject
    from ..models.section_object import SectionObject


T = TypeVar("T", bound="InteractiveActionObject")


@_attrs_define
class InteractiveActionObject:
    """What the message asks: `buttons` (button), `button` + `sections` (list), `name` + `parameters` (cta_url,
    send_location, flow).

        Attributes:
            button (None | str | Unset): The list's button text.
            buttons (list[ReplyButtonObject] | None | Unset):
            name (None | str | Unset): `cta_url`, `send_location` or `flow`.
            parameters (ActionParametersObject | None | Unset):
            sections (list[SectionObject] | None | Unset):
    """

    button: None | str | Unset = UNSET
    buttons: list[ReplyButtonObject] | None | Unset = UNSET
    name: None | str | Unset = UNSET
    parameters: ActionParametersObject | None | Unset = UNSET
    sections: list[SectionObject] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.action_parameters_object import ActionParametersObject  # noqa: PLC0415

        button: None | str | Unset
        if isinstance(self.button, Unset):
            button = UNSET
        else:
            button = self.button

        buttons: list[dict[str, Any]] | None | Unset
        if isinstance(self.buttons, Unset):
            buttons = UNSET
        elif isinstance(self.buttons, list):
            buttons = []
            for buttons_type_0_item_data in self.buttons:
                buttons_type_0_item = buttons_type_0_item_data.to_dict()
                buttons.append(buttons_type_0_item)

        else:
            buttons = self.buttons

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, ActionParametersObject):
            parameters = self.parameters.to_dict()
        else:
            parameters = self.parameters

        sections: list[dict[str, Any]] | None | Unset
        if isinstance(self.sections, Unset):
            sections = UNSET
        elif isinstance(self.sections, list):
            sections = []
            for sections_type_0_item_data in self.sections:
                sections_type_0_item = sections_type_0_item_data.to_dict()
                sections.append(sections_type_0_item)

        else:
            sections = self.sections

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if button is not UNSET:
            field_dict["button"] = button
        if buttons is not UNSET:
            field_dict["buttons"] = buttons
        if name is not UNSET:
            field_dict["name"] = name
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if sections is not UNSET:
            field_dict["sections"] = sections

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_parameters_object import ActionParametersObject  # noqa: PLC0415
        from ..models.reply_button_object import ReplyButtonObject  # noqa: PLC0415
        from ..models.section_object import SectionObject  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_button(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        button = _parse_button(d.pop("button", UNSET))

        def _parse_buttons(data: object) -> list[ReplyButtonObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                buttons_type_0 = []
                _buttons_type_0 = data
                for buttons_type_0_item_data in _buttons_type_0:
                    buttons_type_0_item = ReplyButtonObject.from_dict(buttons_type_0_item_data)

                    buttons_type_0.append(buttons_type_0_item)

                return buttons_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ReplyButtonObject] | None | Unset, data)

        buttons = _parse_buttons(d.pop("buttons", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_parameters(data: object) -> ActionParametersObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_1 = ActionParametersObject.from_dict(data)

                return parameters_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionParametersObject | None | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        def _parse_sections(data: object) -> list[SectionObject] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                sections_type_0 = []
                _sections_type_0 = data
                for sections_type_0_item_data in _sections_type_0:
                    sections_type_0_item = SectionObject.from_dict(sections_type_0_item_data)

                    sections_type_0.append(sections_type_0_item)

                return sections_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SectionObject] | None | Unset, data)

        sections = _parse_sections(d.pop("sections", UNSET))

        interactive_action_object = cls(
            button=button,
            buttons=buttons,
            name=name,
            parameters=parameters,
            sections=sections,
        )

        interactive_action_object.additional_properties = d
        return interactive_action_object

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
