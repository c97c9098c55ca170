from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.full_variables_request import FullVariablesRequest
    from ..models.template_ref_request import TemplateRefRequest
    from ..models.template_variables_request_type_2 import TemplateVariablesRequestType2


T = TypeVar("T", bound="SendTemplateRequest")


@_attrs_define
class SendTemplateRequest:
    """`POST /api/v1/messages/send-template`: a template message, or a text message with `"type": "text"`
    (then `message` and `preview_url` as in send-text, and no `template`).

        Example:
            {'template': {'language': 'en_US', 'name': 'order_shipped'}, 'to': '+15551234567', 'type': 'template',
                'variables': {'body': ['Ana', '#1234', 'Friday'], 'buttons': [{'index': 0, 'sub_type': 'url', 'values':
                ['track/1234']}], 'header': {'type': 'text', 'values': ['#1234']}}}

        Attributes:
            to (str):
            client_reference (None | str | Unset):
            from_ (None | str | Unset):
            marketing_route (None | str | Unset): A marketing template's send path (docs/api.md §4.11): `auto` (the default:
                the Marketing Messages
                API when the business has accepted its terms, else the Cloud API), `cloud_api` or
                `marketing_messages` (only that API; refused with 422 for any message but a marketing template). Example: auto.
            message (None | str | Unset): Text form only.
            message_activity_sharing (bool | None | Unset): Meta's `message_activity_sharing` on the Marketing Messages API;
                marketing templates only.
            preview_url (bool | None | Unset): Text form only.
            reply_to (None | str | Unset): A `msg_…` or `inb_…` id of this conversation.
            template (None | TemplateRefRequest | Unset):
            type_ (None | str | Unset): `template` (may be left out when `template` is given) or `text`.
            variables (FullVariablesRequest | list[str] | None | TemplateVariablesRequestType2 | Unset):
    """

    to: str
    client_reference: None | str | Unset = UNSET
    from_: None | str | Unset = UNSET
    marketing_route: None | str | Unset = UNSET
    message: None | str | Unset = UNSET
    message_activity_sharing: bool | None | Unset = UNSET
    preview_url: bool | None | Unset = UNSET
    reply_to: None | str | Unset = UNSET
    template: None | TemplateRefRequest | Unset = UNSET
    type_: None | str | Unset = UNSET
    variables: FullVariablesRequest | list[str] | None | TemplateVariablesRequestType2 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.full_variables_request import FullVariablesRequest  # noqa: PLC0415
        from ..models.template_ref_request import TemplateRefRequest  # noqa: PLC0415
        from ..models.template_variables_request_type_2 import TemplateVariablesRequestType2  # noqa: PLC0415

        to = self.to

        client_reference: None | str | Unset
        if isinstance(self.client_reference, Unset):
            client_reference = UNSET
        else:
            client_reference = self.client_reference

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        else:
            from_ = self.from_

        marketing_route: None | str | Unset
        if isinstance(self.marketing_route, Unset):
            marketing_route = UNSET
        else:
            marketing_route = self.marketing_route

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        message_activity_sharing: bool | None | Unset
        if isinstance(self.message_activity_sharing, Unset):
            message_activity_sharing = UNSET
        else:
            message_activity_sharing = self.message_activity_sharing

        preview_url: bool | None | Unset
        if isinstance(self.preview_url, Unset):
            preview_url = UNSET
        else:
            preview_url = self.preview_url

        reply_to: None | str | Unset
        if isinstance(self.reply_to, Unset):
            reply_to = UNSET
        else:
            reply_to = self.reply_to

        template: dict[str, Any] | None | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        elif isinstance(self.template, TemplateRefRequest):
            template = self.template.to_dict()
        else:
            template = self.template

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

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
        if from_ is not UNSET:
            field_dict["from"] = from_
        if marketing_route is not UNSET:
            field_dict["marketing_route"] = marketing_route
        if message is not UNSET:
            field_dict["message"] = message
        if message_activity_sharing is not UNSET:
            field_dict["message_activity_sharing"] = message_activity_sharing
        if preview_url is not UNSET:
            field_dict["preview_url"] = preview_url
        if reply_to is not UNSET:
            field_dict["reply_to"] = reply_to
        if template is not UNSET:
            field_dict["template"] = template
        if type_ is not UNSET:
            field_dict["type"] = type_
        if variables is not UNSET:
            field_dict["variables"] = variables

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.full_variables_request import FullVariablesRequest  # noqa: PLC0415
        from ..models.template_ref_request import TemplateRefRequest  # noqa: PLC0415
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

        def _parse_from_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_marketing_route(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        marketing_route = _parse_marketing_route(d.pop("marketing_route", UNSET))

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        def _parse_message_activity_sharing(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        message_activity_sharing = _parse_message_activity_sharing(d.pop("message_activity_sharing", UNSET))

        def _parse_preview_url(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        preview_url = _parse_preview_url(d.pop("preview_url", UNSET))

        def _parse_reply_to(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reply_to = _parse_reply_to(d.pop("reply_to", UNSET))

        def _parse_template(data: object) -> None | TemplateRefRequest | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                template_type_1 = TemplateRefRequest.from_dict(data)

                return template_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateRefRequest | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

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

        send_template_request = cls(
            to=to,
            client_reference=client_reference,
            from_=from_,
            marketing_route=marketing_route,
            message=message,
            message_activity_sharing=message_activity_sharing,
            preview_url=preview_url,
            reply_to=reply_to,
            template=template,
            type_=type_,
            variables=variables,
        )

        send_template_request.additional_properties = d
        return send_template_request

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
