from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ErasureResource")


@_attrs_define
class ErasureResource:
    """What `DELETE /api/v1/contacts/{recipient}` did (docs/api.md §7.2). A repeated erasure answers the
    same marker with nothing new counted.

        Example:
            {'cancelled': 1, 'erased': 'erased:9f2c4e8b1a7d3f6e0c5b2a9d8e7f1c3b4a6d9e2f0c8b7a5d3e1f9c2b4a6d8e0f', 'files':
                1, 'inbound': 4, 'messages': 12}

        Attributes:
            cancelled (int): Queued messages cancelled first (their quota given back).
            erased (str): What the person's kept rows (and the `contact.erased` event) hold instead of their number or user
                id: `erased:` and a keyed one-way digest, the same at every erasure of them.
            files (int): Uploaded files deleted with their bytes.
            inbound (int): Received messages whose content was erased by this request.
            messages (int): Sent messages whose content was erased by this request.
    """

    cancelled: int
    erased: str
    files: int
    inbound: int
    messages: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cancelled = self.cancelled

        erased = self.erased

        files = self.files

        inbound = self.inbound

        messages = self.messages

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cancelled": cancelled,
                "erased": erased,
                "files": files,
                "inbound": inbound,
                "messages": messages,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cancelled = d.pop("cancelled")

        erased = d.pop("erased")

        files = d.pop("files")

        inbound = d.pop("inbound")

        messages = d.pop("messages")

        erasure_resource = cls(
            cancelled=cancelled,
            erased=erased,
            files=files,
            inbound=inbound,
            messages=messages,
        )

        erasure_resource.additional_properties = d
        return erasure_resource

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
