from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TemplateBodyResource")


@_attrs_define
class TemplateBodyResource:
    """The body's variables.

    Attributes:
        names (list[str]): The parameter names of a named template, in the template's order.
        parameter_format (str): `positional` (`{{1}}`…) or `named` (`{{customer}}`).
        parameters (int):
    """

    names: list[str]
    parameter_format: str
    parameters: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        names = self.names

        parameter_format = self.parameter_format

        parameters = self.parameters

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "names": names,
                "parameter_format": parameter_format,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        names = cast(list[str], d.pop("names"))

        parameter_format = d.pop("parameter_format")

        parameters = d.pop("parameters")

        template_body_resource = cls(
            names=names,
            parameter_format=parameter_format,
            parameters=parameters,
        )

        template_body_resource.additional_properties = d
        return template_body_resource

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
