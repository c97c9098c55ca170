from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.template_category_request import TemplateCategoryRequest
from ..models.template_parameter_format_request import TemplateParameterFormatRequest
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_component_request import TemplateComponentRequest


T = TypeVar("T", bound="TemplateCreateRequest")


@_attrs_define
class TemplateCreateRequest:
    """A template to submit for the network's review: Meta's own `message_templates` body plus `from`.

    Example:
        {'category': 'UTILITY', 'components': [{'example': {'body_text': [['A-1001']]}, 'text': 'Your order {{1}} is
            ready.', 'type': 'BODY'}], 'language': 'en_US', 'name': 'order_ready'}

    Attributes:
        category (TemplateCategoryRequest): A template's category.
        components (list[TemplateComponentRequest]): One `BODY` and, by category, `HEADER`, `FOOTER`, `BUTTONS`,
            `CAROUSEL` or `LIMITED_TIME_OFFER`.
        language (str): The language code, e.g. `en_US`.
        name (str): Lowercase letters, digits and `_`; at most 512 characters.
        allow_category_change (bool | None | Unset): Whether the network may change the category on review.
        from_ (None | str | Unset): The sender number (E.164) whose business account gets it; default: the default
            sender.
        parameter_format (None | TemplateParameterFormatRequest | Unset):
    """

    category: TemplateCategoryRequest
    components: list[TemplateComponentRequest]
    language: str
    name: str
    allow_category_change: bool | None | Unset = UNSET
    from_: None | str | Unset = UNSET
    parameter_format: None | TemplateParameterFormatRequest | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        category = self.category.value

        components = []
        for components_item_data in self.components:
            components_item = components_item_data.to_dict()
            components.append(components_item)

        language = self.language

        name = self.name

        allow_category_change: bool | None | Unset
        if isinstance(self.allow_category_change, Unset):
            allow_category_change = UNSET
        else:
            allow_category_change = self.allow_category_change

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        parameter_format: None | str | Unset
        if isinstance(self.parameter_format, Unset):
            parameter_format = UNSET
        elif isinstance(self.parameter_format, TemplateParameterFormatRequest):
            parameter_format = self.parameter_format.value
        else:
            parameter_format = self.parameter_format

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "category": category,
                "components": components,
                "language": language,
                "name": name,
            }
        )
        if allow_category_change is not UNSET:
            field_dict["allow_category_change"] = allow_category_change
        if from_ is not UNSET:
            field_dict["from"] = from_
        if parameter_format is not UNSET:
            field_dict["parameter_format"] = parameter_format

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_component_request import TemplateComponentRequest  # noqa: PLC0415

        d = dict(src_dict)
        category = TemplateCategoryRequest(d.pop("category"))

        components = []
        _components = d.pop("components")
        for components_item_data in _components:
            components_item = TemplateComponentRequest.from_dict(components_item_data)

            components.append(components_item)

        language = d.pop("language")

        name = d.pop("name")

        def _parse_allow_category_change(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        allow_category_change = _parse_allow_category_change(d.pop("allow_category_change", UNSET))

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_parameter_format(data: object) -> None | TemplateParameterFormatRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parameter_format_type_1 = TemplateParameterFormatRequest(data)

                return parameter_format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateParameterFormatRequest | Unset, data)

        parameter_format = _parse_parameter_format(d.pop("parameter_format", UNSET))

        template_create_request = cls(
            category=category,
            components=components,
            language=language,
            name=name,
            allow_category_change=allow_category_change,
            from_=from_,
            parameter_format=parameter_format,
        )

        template_create_request.additional_properties = d
        return template_create_request

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
