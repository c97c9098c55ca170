from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.reply_object import ReplyObject


T = TypeVar("T", bound="ReplyButtonObject")


@_attrs_define
class ReplyButtonObject:
    """`{"type": "reply", "reply": {"id", "title"}}`.

    Attributes:
        reply (ReplyObject):
        type_ (str):
    """

    reply: ReplyObject
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reply = self.reply.to_dict()

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reply": reply,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reply_object import ReplyObject  # noqa: PLC0415

        d = dict(src_dict)
        reply = ReplyObject.from_dict(d.pop("reply"))

        type_ = d.pop("type")

        reply_button_object = cls(
            reply=reply,
            type_=type_,
        )

        reply_button_object.additional_properties = d
        return reply_button_object

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
