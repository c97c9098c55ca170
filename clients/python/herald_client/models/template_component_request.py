from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.template_component_request_buttons_type_0_item import TemplateComponentRequestButtonsType0Item
    from ..models.template_component_request_cards_type_0_item import TemplateComponentRequestCardsType0Item
    from ..models.template_component_request_example_type_0 import TemplateComponentRequestExampleType0
    from ..models.template_component_request_limited_time_offer_type_0 import (
        TemplateComponentRequestLimitedTimeOfferType0,
    )


T = TypeVar("T", bound="TemplateComponentRequest")


@_attrs_define
class TemplateComponentRequest:
    """One component in Meta's shape. Which fields a component takes depends on its `type` (docs/api.md
    §6.1): `HEADER` `format` (`TEXT`, `IMAGE`, `VIDEO`, `DOCUMENT`, `LOCATION`), `text`, `example`; `BODY`
    `text`, `example` (authentication: `add_security_recommendation`); `FOOTER` `text` (authentication:
    `code_expiration_minutes`); `BUTTONS` `buttons`; `CAROUSEL` `cards`; `LIMITED_TIME_OFFER`
    `limited_time_offer`. Any other field is refused with the path that names it.

        Attributes:
            type_ (str): `HEADER`, `BODY`, `FOOTER`, `BUTTONS`, `CAROUSEL` or `LIMITED_TIME_OFFER`.
            add_security_recommendation (bool | None | Unset): Authentication `BODY`: add the security recommendation.
            buttons (list[TemplateComponentRequestButtonsType0Item] | None | Unset): `BUTTONS`: `QUICK_REPLY`, `URL`,
                `PHONE_NUMBER`, `COPY_CODE`, `FLOW`, `VOICE_CALL` or `OTP`
                buttons in Meta's shape.
            cards (list[TemplateComponentRequestCardsType0Item] | None | Unset): `CAROUSEL`: 2 to 10 cards, each
                `{"components": [...]}`.
            code_expiration_minutes (int | None | Unset): Authentication `FOOTER`: 1 to 90.
            example (None | TemplateComponentRequestExampleType0 | Unset): Samples for the review: `header_text`,
                `body_text` (positional), `header_text_named_params`,
                `body_text_named_params` (named), and for a media header `media_id` (an upload) or
                `header_handle`.
            format_ (None | str | Unset): `HEADER` only: `TEXT`, `IMAGE`, `VIDEO`, `DOCUMENT` or `LOCATION`.
            limited_time_offer (None | TemplateComponentRequestLimitedTimeOfferType0 | Unset): `LIMITED_TIME_OFFER`:
                `{"text", "has_expiration"?}`.
            text (None | str | Unset):
    """

    type_: str
    add_security_recommendation: bool | None | Unset = UNSET
    buttons: list[TemplateComponentRequestButtonsType0Item] | None | Unset = UNSET
    cards: list[TemplateComponentRequestCardsType0Item] | None | Unset = UNSET
    code_expiration_minutes: int | None | Unset = UNSET
    example: None | TemplateComponentRequestExampleType0 | Unset = UNSET
    format_: None | str | Unset = UNSET
    limited_time_offer: None | TemplateComponentRequestLimitedTimeOfferType0 | Unset = UNSET
    text: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.template_component_request_example_type_0 import TemplateComponentRequestExampleType0  # noqa: PLC0415
        from ..models.template_component_request_limited_time_offer_type_0 import (
            TemplateComponentRequestLimitedTimeOfferType0,  # noqa: PLC0415
        )

        type_ = self.type_

        add_security_recommendation: bool | None | Unset
        if isinstance(self.add_security_recommendation, Unset):
            add_security_recommendation = UNSET
        else:
            add_security_recommendation = self.add_security_recommendation

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

        cards: list[dict[str, Any]] | None | Unset
        if isinstance(self.cards, Unset):
            cards = UNSET
        elif isinstance(self.cards, list):
            cards = []
            for cards_type_0_item_data in self.cards:
                cards_type_0_item = cards_type_0_item_data.to_dict()
                cards.append(cards_type_0_item)

        else:
            cards = self.cards

        code_expiration_minutes: int | None | Unset
        if isinstance(self.code_expiration_minutes, Unset):
            code_expiration_minutes = UNSET
        else:
            code_expiration_minutes = self.code_expiration_minutes

        example: dict[str, Any] | None | Unset
        if isinstance(self.example, Unset):
            example = UNSET
        elif isinstance(self.example, TemplateComponentRequestExampleType0):
            example = self.example.to_dict()
        else:
            example = self.example

        format_: None | str | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        else:
            format_ = self.format_

        limited_time_offer: dict[str, Any] | None | Unset
        if isinstance(self.limited_time_offer, Unset):
            limited_time_offer = UNSET
        elif isinstance(self.limited_time_offer, TemplateComponentRequestLimitedTimeOfferType0):
            limited_time_offer = self.limited_time_offer.to_dict()
        else:
            limited_time_offer = self.limited_time_offer

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if add_security_recommendation is not UNSET:
            field_dict["add_security_recommendation"] = add_security_recommendation
        if buttons is not UNSET:
            field_dict["buttons"] = buttons
        if cards is not UNSET:
            field_dict["cards"] = cards
        if code_expiration_minutes is not UNSET:
            field_dict["code_expiration_minutes"] = code_expiration_minutes
        if example is not UNSET:
            field_dict["example"] = example
        if format_ is not UNSET:
            field_dict["format"] = format_
        if limited_time_offer is not UNSET:
            field_dict["limited_time_offer"] = limited_time_offer
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.template_component_request_buttons_type_0_item import TemplateComponentRequestButtonsType0Item  # noqa: PLC0415
        from ..models.template_component_request_cards_type_0_item import TemplateComponentRequestCardsType0Item  # noqa: PLC0415
        from ..models.template_component_request_example_type_0 import TemplateComponentRequestExampleType0  # noqa: PLC0415
        from ..models.template_component_request_limited_time_offer_type_0 import (
            TemplateComponentRequestLimitedTimeOfferType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_add_security_recommendation(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        add_security_recommendation = _parse_add_security_recommendation(d.pop("add_security_recommendation", UNSET))

        def _parse_buttons(data: object) -> list[TemplateComponentRequestButtonsType0Item] | None | Unset:
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
                    buttons_type_0_item = TemplateComponentRequestButtonsType0Item.from_dict(buttons_type_0_item_data)

                    buttons_type_0.append(buttons_type_0_item)

                return buttons_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TemplateComponentRequestButtonsType0Item] | None | Unset, data)

        buttons = _parse_buttons(d.pop("buttons", UNSET))

        def _parse_cards(data: object) -> list[TemplateComponentRequestCardsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                cards_type_0 = []
                _cards_type_0 = data
                for cards_type_0_item_data in _cards_type_0:
                    cards_type_0_item = TemplateComponentRequestCardsType0Item.from_dict(cards_type_0_item_data)

                    cards_type_0.append(cards_type_0_item)

                return cards_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TemplateComponentRequestCardsType0Item] | None | Unset, data)

        cards = _parse_cards(d.pop("cards", UNSET))

        def _parse_code_expiration_minutes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        code_expiration_minutes = _parse_code_expiration_minutes(d.pop("code_expiration_minutes", UNSET))

        def _parse_example(data: object) -> None | TemplateComponentRequestExampleType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                example_type_0 = TemplateComponentRequestExampleType0.from_dict(data)

                return example_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateComponentRequestExampleType0 | Unset, data)

        example = _parse_example(d.pop("example", UNSET))

        def _parse_format_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))

        def _parse_limited_time_offer(data: object) -> None | TemplateComponentRequestLimitedTimeOfferType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                limited_time_offer_type_0 = TemplateComponentRequestLimitedTimeOfferType0.from_dict(data)

                return limited_time_offer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TemplateComponentRequestLimitedTimeOfferType0 | Unset, data)

        limited_time_offer = _parse_limited_time_offer(d.pop("limited_time_offer", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        template_component_request = cls(
            type_=type_,
            add_security_recommendation=add_security_recommendation,
            buttons=buttons,
            cards=cards,
            code_expiration_minutes=code_expiration_minutes,
            example=example,
            format_=format_,
            limited_time_offer=limited_time_offer,
            text=text,
        )

        template_component_request.additional_properties = d
        return template_component_request

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
