from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.flow_payload_object import FlowPayloadObject


T = TypeVar("T", bound="ActionParametersObject")


@_attrs_define
class ActionParametersObject:
    """A CTA URL button's (`display_text`, `url`) or a Flow's parameters.

    Attributes:
        display_text (None | str | Unset):
        flow_action (None | str | Unset): `navigate` (default) or `data_exchange`.
        flow_action_payload (FlowPayloadObject | None | Unset):
        flow_cta (None | str | Unset):
        flow_id (None | str | Unset):
        flow_message_version (None | str | Unset):
        flow_name (None | str | Unset):
        flow_token (None | str | Unset):
        mode (None | str | Unset): `published` (default) or `draft`.
        url (None | str | Unset):
    """

    display_text: None | str | Unset = UNSET
    flow_action: None | str | Unset = UNSET
    flow_action_payload: FlowPayloadObject | None | Unset = UNSET
    flow_cta: None | str | Unset = UNSET
    flow_id: None | str | Unset = UNSET
    flow_message_version: None | str | Unset = UNSET
    flow_name: None | str | Unset = UNSET
    flow_token: None | str | Unset = UNSET
    mode: None | str | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.flow_payload_object import FlowPayloadObject  # noqa: PLC0415

        display_text: None | str | Unset
        if isinstance(self.display_text, Unset):
            display_text = UNSET
        else:
            display_text = self.display_text

        flow_action: None | str | Unset
        if isinstance(self.flow_action, Unset):
            flow_action = UNSET
        else:
            flow_action = self.flow_action

        flow_action_payload: dict[str, Any] | None | Unset
        if isinstance(self.flow_action_payload, Unset):
            flow_action_payload = UNSET
        elif isinstance(self.flow_action_payload, FlowPayloadObject):
            flow_action_payload = self.flow_action_payload.to_dict()
        else:
            flow_action_payload = self.flow_action_payload

        flow_cta: None | str | Unset
        if isinstance(self.flow_cta, Unset):
            flow_cta = UNSET
        else:
            flow_cta = self.flow_cta

        flow_id: None | str | Unset
        if isinstance(self.flow_id, Unset):
            flow_id = UNSET
        else:
            flow_id = self.flow_id

        flow_message_version: None | str | Unset
        if isinstance(self.flow_message_version, Unset):
            flow_message_version = UNSET
        else:
            flow_message_version = self.flow_message_version

        flow_name: None | str | Unset
        if isinstance(self.flow_name, Unset):
            flow_name = UNSET
        else:
            flow_name = self.flow_name

        flow_token: None | str | Unset
        if isinstance(self.flow_token, Unset):
            flow_token = UNSET
        else:
            flow_token = self.flow_token

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        else:
            mode = self.mode

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if display_text is not UNSET:
            field_dict["display_text"] = display_text
        if flow_action is not UNSET:
            field_dict["flow_action"] = flow_action
        if flow_action_payload is not UNSET:
            field_dict["flow_action_payload"] = flow_action_payload
        if flow_cta is not UNSET:
            field_dict["flow_cta"] = flow_cta
        if flow_id is not UNSET:
            field_dict["flow_id"] = flow_id
        if flow_message_version is not UNSET:
            field_dict["flow_message_version"] = flow_message_version
        if flow_name is not UNSET:
            field_dict["flow_name"] = flow_name
        if flow_token is not UNSET:
            field_dict["flow_token"] = flow_token
        if mode is not UNSET:
            field_dict["mode"] = mode
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.flow_payload_object import FlowPayloadObject  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_display_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_text = _parse_display_text(d.pop("display_text", UNSET))

        def _parse_flow_action(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        flow_action = _parse_flow_action(d.pop("flow_action", UNSET))

        def _parse_flow_action_payload(data: object) -> FlowPayloadObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                flow_action_payload_type_1 = FlowPayloadObject.from_dict(data)

                return flow_action_payload_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FlowPayloadObject | None | Unset, data)

        flow_action_payload = _parse_flow_action_payload(d.pop("flow_action_payload", UNSET))

        def _parse_flow_cta(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        flow_cta = _parse_flow_cta(d.pop("flow_cta", UNSET))

        def _parse_flow_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        flow_id = _parse_flow_id(d.pop("flow_id", UNSET))

        def _parse_flow_message_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        flow_message_version = _parse_flow_message_version(d.pop("flow_message_version", UNSET))

        def _parse_flow_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        flow_name = _parse_flow_name(d.pop("flow_name", UNSET))

        def _parse_flow_token(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        flow_token = _parse_flow_token(d.pop("flow_token", UNSET))

        def _parse_mode(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        action_parameters_object = cls(
            display_text=display_text,
            flow_action=flow_action,
            flow_action_payload=flow_action_payload,
            flow_cta=flow_cta,
            flow_id=flow_id,
            flow_message_version=flow_message_version,
            flow_name=flow_name,
            flow_token=flow_token,
            mode=mode,
            url=url,
        )

        action_parameters_object.additional_properties = d
        return action_parameters_object

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
