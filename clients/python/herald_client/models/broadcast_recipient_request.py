from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.full_variables_request import FullVariablesRequest
    from ..models.template_variables_request_type_2 import TemplateVariablesRequestType2


T = TypeVar("T", bound="BroadcastRecipientRequest")


@_attrs_define
class BroadcastRecipientRequest:
    """One recipient of a broadcast.

    Attributes:
        to (str): E.164, or a business-scoped user id (as a single send's `to`); each person at most once per broadcast.
        client_reference (None | str | Unset): Your own id, up to 128 characters, echoed in the message and its events.
        variables (FullVariablesRequest | list[str] | None | TemplateVariablesRequestType2 | Unset):
    """

    to: str
    client_reference: None | str | Unset = UNSET
    variables: FullVariablesRequest | list[str] | None | TemplateVariablesRequestType2 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.full_variables_request import FullVariablesRequest  # noqa: PLC0415
        from ..models.template_variables_request_type_2 import TemplateVariablesRequestType2  # noqa: PLC0415

        to = self.to

        client_reference: None | str | Unset
        if isinstance(self.client_reference, Unset):
            client_reference = UNSET
        else:
            client_reference = self.client_reference

        variables: dict[str, Any] | list[str] | None | Unset
        if isinstance(self.variables, Unset):
            variables = UNSET
        elif isinstance(self.variables, FullVariablesRequest):
            variables = self.variables.to_dict()
        elif isinstance(self.variables, list):
            variables = self.variables

        elif isinstance(self.variables, TemplateVariablesRequestType2):
            variables = self.variables.to_dict()
        else:
            variables = self.variables

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "to": to,
            }
        )
        if client_reference is not UNSET:
            field_dict["client_reference"] = client_reference
        if variables is not UNSET:
            field_dict["variables"] = variables

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.full_variables_request import FullVariablesRequest  # noqa: PLC0415
        from ..models.template_variables_request_type_2 import TemplateVariablesRequestType2  # noqa: PLC0415

        d = dict(src_dict)
        to = d.pop("to")

        def _parse_client_reference(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_reference = _parse_client_reference(d.pop("client_reference", UNSET))

        def _parse_variables(
            data: object,
        ) -> FullVariablesRequest | list[str] | None | TemplateVariablesRequestType2 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_template_variables_request_type_0 = FullVariablesRequest.from_dict(data)

                return componentsschemas_template_variables_request_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_template_variables_request_type_1 = cast(list[str], data)

                return componentsschemas_template_variables_request_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_template_variables_request_type_2 = TemplateVariablesRequestType2.from_dict(data)

                return componentsschemas_template_variables_request_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FullVariablesRequest | list[str] | None | TemplateVariablesRequestType2 | Unset, data)

        variables = _parse_variables(d.pop("variables", UNSET))

        broadcast_recipient_request = cls(
            to=to,
            client_reference=client_reference,
            variables=variables,
        )

        broadcast_recipient_request.additional_properties = d
        return broadcast_recipient_request

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
