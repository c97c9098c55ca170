from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.flow_payload_object_data_type_0 import FlowPayloadObjectDataType0


T = TypeVar("T", bound="FlowPayloadObject")


@_attrs_define
class FlowPayloadObject:
    """
    Attributes:
        screen (str):
        data (FlowPayloadObjectDataType0 | None | Unset): A non-empty JSON object: the first screen's input.
    """

    screen: str
    data: FlowPayloadObjectDataType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.flow_payload_object_data_type_0 import FlowPayloadObjectDataType0  # noqa: PLC0415

        screen = self.screen

        data: dict[str, Any] | None | Unset
        if isinstance(self.data, Unset):
            data = UNSET
        elif isinstance(self.data, FlowPayloadObjectDataType0):
            data = self.data.to_dict()
        else:
            data = self.data

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "screen": screen,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.flow_payload_object_data_type_0 import FlowPayloadObjectDataType0  # noqa: PLC0415

        d = dict(src_dict)
        screen = d.pop("screen")

        def _parse_data(data: object) -> FlowPayloadObjectDataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = FlowPayloadObjectDataType0.from_dict(data)

                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FlowPayloadObjectDataType0 | None | Unset, data)

        data = _parse_data(d.pop("data", UNSET))

        flow_payload_object = cls(
            screen=screen,
            data=data,
        )

        flow_payload_object.additional_properties = d
        return flow_payload_object

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
