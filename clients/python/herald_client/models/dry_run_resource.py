from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cost_resource import CostResource
    from ..models.dry_run_window_resource import DryRunWindowResource
    from ..models.expected_pricing_resource import ExpectedPricingResource
    from ..models.problem import Problem


T = TypeVar("T", bound="DryRunResource")


@_attrs_define
class DryRunResource:
    """What a send would meet (`?dry_run=true`, docs/api.md §4).

    Attributes:
        refusals (list[Problem]): The problems the send would be refused with, in the order it would meet them: each is
            the body the
            send itself would answer (its `status` the send's status code).
        would_accept (bool): Whether the send would be accepted now: `refusals` is empty.
        estimated_cost (CostResource | None | Unset):
        marketing_route (None | str | Unset): A marketing template's send path as it would be asked (`auto`, `cloud_api`
            or `marketing_messages`,
            docs/api.md §4.11), once the template is known; `null` for any other message (the Cloud API). Example: auto.
        pricing (ExpectedPricingResource | None | Unset):
        window (DryRunWindowResource | None | Unset):
    """

    refusals: list[Problem]
    would_accept: bool
    estimated_cost: CostResource | None | Unset = UNSET
    marketing_route: None | str | Unset = UNSET
    pricing: ExpectedPricingResource | None | Unset = UNSET
    window: DryRunWindowResource | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cost_resource import CostResource  # noqa: PLC0415
        from ..models.dry_run_window_resource import DryRunWindowResource  # noqa: PLC0415
        from ..models.expected_pricing_resource import ExpectedPricingResource  # noqa: PLC0415

        refusals = []
        for refusals_item_data in self.refusals:
            refusals_item = refusals_item_data.to_dict()
            refusals.append(refusals_item)

        would_accept = self.would_accept

        estimated_cost: dict[str, Any] | None | Unset
        if isinstance(self.estimated_cost, Unset):
            estimated_cost = UNSET
        elif isinstance(self.estimated_cost, CostResource):
            estimated_cost = self.estimated_cost.to_dict()
        else:
            estimated_cost = self.estimated_cost

        marketing_route: None | str | Unset
        if isinstance(self.marketing_route, Unset):
            marketing_route = UNSET
        else:
            marketing_route = self.marketing_route

        pricing: dict[str, Any] | None | Unset
        if isinstance(self.pricing, Unset):
            pricing = UNSET
        elif isinstance(self.pricing, ExpectedPricingResource):
            pricing = self.pricing.to_dict()
        else:
            pricing = self.pricing

        window: dict[str, Any] | None | Unset
        if isinstance(self.window, Unset):
            window = UNSET
        elif isinstance(self.window, DryRunWindowResource):
            window = self.window.to_dict()
        else:
            window = self.window

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "refusals": refusals,
                "would_accept": would_accept,
            }
        )
        if estimated_cost is not UNSET:
            field_dict["estimated_cost"] = estimated_cost
        if marketing_route is not UNSET:
            field_dict["marketing_route"] = marketing_route
        if pricing is not UNSET:
            field_dict["pricing"] = pricing
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cost_resource import CostResource  # noqa: PLC0415
        from ..models.dry_run_window_resource import DryRunWindowResource  # noqa: PLC0415
        from ..models.expected_pricing_resource import ExpectedPricingResource  # noqa: PLC0415
        from ..models.problem import Problem  # noqa: PLC0415

        d = dict(src_dict)
        refusals = []
        _refusals = d.pop("refusals")
        for refusals_item_data in _refusals:
            refusals_item = Problem.from_dict(refusals_item_data)

            refusals.append(refusals_item)

        would_accept = d.pop("would_accept")

        def _parse_estimated_cost(data: object) -> CostResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimated_cost_type_1 = CostResource.from_dict(data)

                return estimated_cost_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CostResource | None | Unset, data)

        estimated_cost = _parse_estimated_cost(d.pop("estimated_cost", UNSET))

        def _parse_marketing_route(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        marketing_route = _parse_marketing_route(d.pop("marketing_route", UNSET))

        def _parse_pricing(data: object) -> ExpectedPricingResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pricing_type_1 = ExpectedPricingResource.from_dict(data)

                return pricing_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ExpectedPricingResource | None | Unset, data)

        pricing = _parse_pricing(d.pop("pricing", UNSET))

        def _parse_window(data: object) -> DryRunWindowResource | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                window_type_1 = DryRunWindowResource.from_dict(data)

                return window_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DryRunWindowResource | None | Unset, data)

        window = _parse_window(d.pop("window", UNSET))

        dry_run_resource = cls(
            refusals=refusals,
            would_accept=would_accept,
            estimated_cost=estimated_cost,
            marketing_route=marketing_route,
            pricing=pricing,
            window=window,
        )

        dry_run_resource.additional_properties = d
        return dry_run_resource

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
