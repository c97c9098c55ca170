from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.problem_field import ProblemField
    from ..models.rejected_row_resource import RejectedRowResource


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """An RFC 9457 problem document, as every error answers.

    Example:
        {'code': 'validation_failed', 'detail': '1 field is invalid', 'errors': [{'field': 'to', 'message': 'must be an
            E.164 number'}], 'request_id': 'req_01JD0000000000000000000000', 'status': 422, 'title': 'Validation failed',
            'type': 'urn:herald:error:validation_failed'}

    Attributes:
        code (str): The stable machine code (docs/api.md §2).
        detail (str):
        status (int):
        title (str):
        type_ (str): `urn:herald:error:<code>`.
        errors (list[ProblemField] | None | Unset): Present on `validation_failed` only: the invalid fields, the first
            100 found (`errors_total` counts
            them all).
        errors_total (int | None | Unset): With `errors`: how many field errors the request had, those past the first
            100 included. Example: 1.
        rejected (list[RejectedRowResource] | None | Unset): Present on a broadcast's `validation_failed` when recipient
            rows were refused: the first 100, each
            with its index in `recipients` and its errors (field names within the row).
        rejected_total (int | None | Unset): With `rejected`: how many rows were refused, those past the first 100
            included.
        request_id (None | str | Unset): The `X-Request-Id` of the request, for support.
    """

    code: str
    detail: str
    status: int
    title: str
    type_: str
    errors: list[ProblemField] | None | Unset = UNSET
    errors_total: int | None | Unset = UNSET
    rejected: list[RejectedRowResource] | None | Unset = UNSET
    rejected_total: int | None | Unset = UNSET
    request_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        detail = self.detail

        status = self.status

        title = self.title

        type_ = self.type_

        errors: list[dict[str, Any]] | None | Unset
        if isinstance(self.errors, Unset):
            errors = UNSET
        elif isinstance(self.errors, list):
            errors = []
            for errors_type_0_item_data in self.errors:
                errors_type_0_item = errors_type_0_item_data.to_dict()
                errors.append(errors_type_0_item)

        else:
            errors = self.errors

        errors_total: int | None | Unset
        if isinstance(self.errors_total, Unset):
            errors_total = UNSET
        else:
            errors_total = self.errors_total

        rejected: list[dict[str, Any]] | None | Unset
        if isinstance(self.rejected, Unset):
            rejected = UNSET
        elif isinstance(self.rejected, list):
            rejected = []
            for rejected_type_0_item_data in self.rejected:
                rejected_type_0_item = rejected_type_0_item_data.to_dict()
                rejected.append(rejected_type_0_item)

        else:
            rejected = self.rejected

        rejected_total: int | None | Unset
        if isinstance(self.rejected_total, Unset):
            rejected_total = UNSET
        else:
            rejected_total = self.rejected_total

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "detail": detail,
                "status": status,
                "title": title,
                "type": type_,
            }
        )
        if errors is not UNSET:
            field_dict["errors"] = errors
        if errors_total is not UNSET:
            field_dict["errors_total"] = errors_total
        if rejected is not UNSET:
            field_dict["rejected"] = rejected
        if rejected_total is not UNSET:
            field_dict["rejected_total"] = rejected_total
        if request_id is not UNSET:
            field_dict["request_id"] = request_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.problem_field import ProblemField  # noqa: PLC0415
        from ..models.rejected_row_resource import RejectedRowResource  # noqa: PLC0415

        d = dict(src_dict)
        code = d.pop("code")

        detail = d.pop("detail")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        def _parse_errors(data: object) -> list[ProblemField] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                errors_type_0 = []
                _errors_type_0 = data
                for errors_type_0_item_data in _errors_type_0:
                    errors_type_0_item = ProblemField.from_dict(errors_type_0_item_data)

                    errors_type_0.append(errors_type_0_item)

                return errors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ProblemField] | None | Unset, data)

        errors = _parse_errors(d.pop("errors", UNSET))

        def _parse_errors_total(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        errors_total = _parse_errors_total(d.pop("errors_total", UNSET))

        def _parse_rejected(data: object) -> list[RejectedRowResource] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rejected_type_0 = []
                _rejected_type_0 = data
                for rejected_type_0_item_data in _rejected_type_0:
                    rejected_type_0_item = RejectedRowResource.from_dict(rejected_type_0_item_data)

                    rejected_type_0.append(rejected_type_0_item)

                return rejected_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RejectedRowResource] | None | Unset, data)

        rejected = _parse_rejected(d.pop("rejected", UNSET))

        def _parse_rejected_total(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rejected_total = _parse_rejected_total(d.pop("rejected_total", UNSET))

        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))

        problem = cls(
            code=code,
            detail=detail,
            status=status,
            title=title,
            type_=type_,
            errors=errors,
            errors_total=errors_total,
            rejected=rejected,
            rejected_total=rejected_total,
            request_id=request_id,
        )

        problem.additional_properties = d
        return problem

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
