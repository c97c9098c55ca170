from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.header_file_object import HeaderFileObject


T = TypeVar("T", bound="InteractiveHeaderObject")


@_attrs_define
class InteractiveHeaderObject:
    """`{"type": "text", "text"}`, or `{"type": "image"|"video"|"document", "<type>": {"media_id", "filename"?}}`.

    Attributes:
        type_ (str):
        document (HeaderFileObject | None | Unset):
        image (HeaderFileObject | None | Unset):
        text (None | str | Unset):
        video (HeaderFileObject | None | Unset):
    """

    type_: str
    document: HeaderFileObject | None | Unset = UNSET
    image: HeaderFileObject | None | Unset = UNSET
    text: None | str | Unset = UNSET
    video: HeaderFileObject | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.header_file_object import HeaderFileObject  # noqa: PLC0415

        type_ = self.type_

        document: dict[str, Any] | None | Unset
        if isinstance(self.document, Unset):
            document = UNSET
        elif isinstance(self.document, HeaderFileObject):
            document = self.document.to_dict()
        else:
            document = self.document

        image: dict[str, Any] | None | Unset
        if isinstance(self.image, Unset):
            image = UNSET
        elif isinstance(self.image, HeaderFileObject):
            image = self.image.to_dict()
        else:
            image = self.image

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        video: dict[str, Any] | None | Unset
        if isinstance(self.video, Unset):
            video = UNSET
        elif isinstance(self.video, HeaderFileObject):
            video = self.video.to_dict()
        else:
            video = self.video

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if document is not UNSET:
            field_dict["document"] = document
        if image is not UNSET:
            field_dict["image"] = image
        if text is not UNSET:
            field_dict["text"] = text
        if video is not UNSET:
            field_dict["video"] = video

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.header_file_object import HeaderFileObject  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_document(data: object) -> HeaderFileObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                document_type_1 = HeaderFileObject.from_dict(data)

                return document_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeaderFileObject | None | Unset, data)

        document = _parse_document(d.pop("document", UNSET))

        def _parse_image(data: object) -> HeaderFileObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                image_type_1 = HeaderFileObject.from_dict(data)

                return image_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeaderFileObject | None | Unset, data)

        image = _parse_image(d.pop("image", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        def _parse_video(data: object) -> HeaderFileObject | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                video_type_1 = HeaderFileObject.from_dict(data)

                return video_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeaderFileObject | None | Unset, data)

        video = _parse_video(d.pop("video", UNSET))

        interactive_header_object = cls(
            type_=type_,
            document=document,
            image=image,
            text=text,
            video=video,
        )

        interactive_header_object.additional_properties = d
        return interactive_header_object

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
