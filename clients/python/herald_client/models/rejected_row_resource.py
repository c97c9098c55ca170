from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.problem_field import ProblemField


T = TypeVar("T", bound="RejectedRowResource")


@_attrs_define
class RejectedRowResource:
    """A recipient row of a broadcast that was left out, and why (docs/api.md §4.10).

    Attributes:
        errors (list[ProblemField]): Its errors, named within the row (`to`, `variables.body[1]`): the first 10.
        errors_total (int): How many errors the row had, those past the first 10 included. Example: 1.
        index (int): The row's position in `recipients`, from 0. Example: 3.
    """

    errors: list[ProblemField]
    errors_total: int
    index: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        errors_total = self.errors_total

        index = self.index

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "errors": errors,
                "errors_total": errors_total,
                "index": index,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.problem_field import ProblemField  # noqa: PLC0415

        d = dict(src_dict)
        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = ProblemField.from_dict(errors_item_data)

            errors.append(errors_item)

        errors_total = d.pop("errors_total")

        index = d.pop("index")

        rejected_row_resource = cls(
            errors=errors,
            errors_total=errors_total,
            index=index,
        )

        rejected_row_resource.additional_properties = d
        return rejected_row_resource

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
