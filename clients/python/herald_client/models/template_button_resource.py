from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TemplateButtonResource")


@_attrs_define
class TemplateButtonResource:
    """A button and what a send gives it.

    Attributes:
        index (int):
        parameters (int):
        sub_type (str): `url`, `quick_reply`, `copy_code`, `flow` or `static`.
    """

    index: int
    parameters: int
    sub_type: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        parameters = self.parameters

        sub_type = self.sub_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "parameters": parameters,
                "sub_type": sub_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        parameters = d.pop("parameters")

        sub_type = d.pop("sub_type")

        template_button_resource = cls(
            index=index,
            parameters=parameters,
            sub_type=sub_type,
        )

        template_button_resource.additional_properties = d
        return template_button_resource

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
