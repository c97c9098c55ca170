from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MediaUploadResource")


@_attrs_define
class MediaUploadResource:
    """An uploaded file, usable as `media_id` for 30 days.

    Attributes:
        created_at (datetime.datetime):
        expires_at (datetime.datetime):
        id (str): `med_…`
        kind (str): `document`, `image`, `video`, `audio` or `sticker`.
        mime_type (str): Judged from the bytes, e.g. `image/png`.
        sha256 (str): Lowercase hex SHA-256 of the bytes.
        size (int): Bytes.
        filename (None | str | Unset):
    """

    created_at: datetime.datetime
    expires_at: datetime.datetime
    id: str
    kind: str
    mime_type: str
    sha256: str
    size: int
    filename: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        expires_at = self.expires_at.isoformat()

        id = self.id

        kind = self.kind

        mime_type = self.mime_type

        sha256 = self.sha256

        size = self.size

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "expires_at": expires_at,
                "id": id,
                "kind": kind,
                "mime_type": mime_type,
                "sha256": sha256,
                "size": size,
            }
        )
        if filename is not UNSET:
            field_dict["filename"] = filename

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        id = d.pop("id")

        kind = d.pop("kind")

        mime_type = d.pop("mime_type")

        sha256 = d.pop("sha256")

        size = d.pop("size")

        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filename = _parse_filename(d.pop("filename", UNSET))

        media_upload_resource = cls(
            created_at=created_at,
            expires_at=expires_at,
            id=id,
            kind=kind,
            mime_type=mime_type,
            sha256=sha256,
            size=size,
            filename=filename,
        )

        media_upload_resource.additional_properties = d
        return media_upload_resource

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
