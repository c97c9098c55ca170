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


T = TypeVar("T", bound="TemplateEditRequest")


@_attrs_define
class TemplateEditRequest:
    """New components for a template, which goes back to review; `name` and `language` are the path's.

    Attributes:
        components (list[TemplateComponentRequest]):
        category (None | TemplateCategoryRequest | Unset):
        from_ (None | str | Unset): The sender number (E.164) whose business account holds it; default: the default
            sender.
        parameter_format (None | TemplateParameterFormatRequest | Unset):
    """

    components: list[TemplateComponentRequest]
    category: None | TemplateCategoryRequest | Unset = UNSET
    from_: None | str | Unset = UNSET
    parameter_format: None | TemplateParameterFormatRequest | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        components = []
        for components_item_data in self.components:
            components_item = components_item_data.to_dict()
            components.append(components_item)

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        elif isinstance(self.category, TemplateCategoryRequest):
            category = self.category.value
        else:
            category = self.category

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
                "components": components,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if from_ is not UNSET:
            field_dict["from"] = from_
        if parameter_format is not UNSET:
            field_dict["parameter_format"] = parameter_format

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_component_request import TemplateComponentRequest  # noqa: PLC0415

        d = dict(src_dict)
        components = []
        _components = d.pop("components")
        for components_item_data in _components:
            components_item = TemplateComponentRequest.from_dict(components_item_data)

            components.append(components_item)

        def _parse_category(data: object) -> None | TemplateCategoryRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                category_type_1 = TemplateCategoryRequest(data)

                return category_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateCategoryRequest | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

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

        template_edit_request = cls(
            components=components,
            category=category,
            from_=from_,
            parameter_format=parameter_format,
        )

        template_edit_request.additional_properties = d
        return template_edit_request

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
