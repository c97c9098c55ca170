from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="KeywordRuleResource")


@_attrs_define
class KeywordRuleResource:
    """The organization's STOP keyword rule: an inbound text that is exactly one of `stop` (trimmed, any case)
    stops marketing messages to its sender; one of `resume` allows them again. Both empty: the rule is off
    (the default). Both are required when the rule is replaced: the rule is turned off by sending both empty.

        Example:
            {'resume': ['START'], 'stop': ['STOP', 'UNSUBSCRIBE']}

        Attributes:
            resume (list[str]): At most 20 keywords of 1 to 32 characters; none may also be a stop keyword.
            stop (list[str]): At most 20 keywords of 1 to 32 characters; stored upper-case.
    """

    resume: list[str]
    stop: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        resume = self.resume

        stop = self.stop

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "resume": resume,
                "stop": stop,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        resume = cast(list[str], d.pop("resume"))

        stop = cast(list[str], d.pop("stop"))

        keyword_rule_resource = cls(
            resume=resume,
            stop=stop,
        )

        keyword_rule_resource.additional_properties = d
        return keyword_rule_resource

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
