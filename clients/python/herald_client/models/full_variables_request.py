from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.body_variables_request_type_1 import BodyVariablesRequestType1
    from ..models.button_variables_request import ButtonVariablesRequest
    from ..models.header_variables_request import HeaderVariablesRequest


T = TypeVar("T", bound="FullVariablesRequest")


@_attrs_define
class FullVariablesRequest:
    """The full variables form.

    Attributes:
        body (BodyVariablesRequestType1 | list[str] | None | Unset):
        buttons (list[ButtonVariablesRequest] | None | Unset):
        header (HeaderVariablesRequest | None | Unset):
    """

    body: BodyVariablesRequestType1 | list[str] | None | Unset = UNSET
    buttons: list[ButtonVariablesRequest] | None | Unset = UNSET
    header: HeaderVariablesRequest | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.body_variables_request_type_1 import BodyVariablesRequestType1  # noqa: PLC0415
        from ..models.header_variables_request import HeaderVariablesRequest  # noqa: PLC0415

        body: dict[str, Any] | list[str] | None | Unset
        if isinstance(self.body, Unset):
            body = UNSET
        elif isinstance(self.body, list):
            body = self.body

        elif isinstance(self.body, BodyVariablesRequestType1):
            body = self.body.to_dict()
        else:
            body = self.body

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

        header: dict[str, Any] | None | Unset
        if isinstance(self.header, Unset):
            header = UNSET
        elif isinstance(self.header, HeaderVariablesRequest):
            header = self.header.to_dict()
        else:
            header = self.header

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if body is not UNSET:
            field_dict["body"] = body
        if buttons is not UNSET:
            field_dict["buttons"] = buttons
        if header is not UNSET:
            field_dict["header"] = header

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.body_variables_request_type_1 import BodyVariablesRequestType1  # noqa: PLC0415
        from ..models.button_variables_request import ButtonVariablesRequest  # noqa: PLC0415
        from ..models.header_variables_request import HeaderVariablesRequest  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_body(data: object) -> BodyVariablesRequestType1 | list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_body_variables_request_type_0 = cast(list[str], data)

                return componentsschemas_body_variables_request_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_body_variables_request_type_1 = BodyVariablesRequestType1.from_dict(data)

                return componentsschemas_body_variables_request_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BodyVariablesRequestType1 | list[str] | None | Unset, data)

        body = _parse_body(d.pop("body", UNSET))

        def _parse_buttons(data: object) -> list[ButtonVariablesRequest] | None | Unset:
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
                    buttons_type_0_item = ButtonVariablesRequest.from_dict(buttons_type_0_item_data)

                    buttons_type_0.append(buttons_type_0_item)

                return buttons_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ButtonVariablesRequest] | None | Unset, data)

        buttons = _parse_buttons(d.pop("buttons", UNSET))

        def _parse_header(data: object) -> HeaderVariablesRequest | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                header_type_1 = HeaderVariablesRequest.from_dict(data)

                return header_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeaderVariablesRequest | None | Unset, data)

        header = _parse_header(d.pop("header", UNSET))

        full_variables_request = cls(
            body=body,
            buttons=buttons,
            header=header,
        )

        full_variables_request.additional_properties = d
        return full_variables_request

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
