from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cost_resource import CostResource
    from ..models.expected_pricing_resource import ExpectedPricingResource
    from ..models.problem import Problem
    from ..models.rejected_row_resource import RejectedRowResource


T = TypeVar("T", bound="BroadcastDryRunResource")


@_attrs_define
class BroadcastDryRunResource:
    """`200` to `POST /api/v1/broadcasts?dry_run=true`: what the broadcast would meet; nothing was stored,
    counted or sent (docs/api.md §4.10).

        Example:
            {'accepted': 2, 'estimated_cost': {'amount': '0.0500', 'currency': 'EUR'}, 'pricing': {'billable': True,
                'category': 'marketing'}, 'refusals': [], 'rejected': [{'errors': [{'field': 'to', 'message':
                'recipient_blocked: …'}], 'index': 1}], 'would_accept': True}

        Attributes:
            accepted (int): The recipient rows that would be accepted, each as one message (`0` when the rows could not be
                judged: see `refusals`).
            refusals (list[Problem]): The problems the whole broadcast would be refused with, in the order the create would
                meet them:
                each is the body it would answer (its `status` the create's status code).
            rejected (list[RejectedRowResource]): The rows that would be left out, each with its index in `recipients` and
                its errors.
            would_accept (bool): Whether the broadcast would be accepted now: `refusals` is empty.
            estimated_cost (CostResource | None | Unset):
            pricing (ExpectedPricingResource | None | Unset):
    """

    accepted: int
    refusals: list[Problem]
    rejected: list[RejectedRowResource]
    would_accept: bool
    estimated_cost: CostResource | None | Unset = UNSET
    pricing: ExpectedPricingResource | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cost_resource import CostResource  # noqa: PLC0415
        from ..models.expected_pricing_resource import ExpectedPricingResource  # noqa: PLC0415

        accepted = self.accepted

        refusals = []
        for refusals_item_data in self.refusals:
            refusals_item = refusals_item_data.to_dict()
            refusals.append(refusals_item)

        rejected = []
        for rejected_item_data in self.rejected:
            rejected_item = rejected_item_data.to_dict()
            rejected.append(rejected_item)

        would_accept = self.would_accept

        estimated_cost: dict[str, Any] | None | Unset
        if isinstance(self.estimated_cost, Unset):
            estimated_cost = UNSET
        elif isinstance(self.estimated_cost, CostResource):
            estimated_cost = self.estimated_cost.to_dict()
        else:
            estimated_cost = self.estimated_cost

        pricing: dict[str, Any] | None | Unset
        if isinstance(self.pricing, Unset):
            pricing = UNSET
        elif isinstance(self.pricing, ExpectedPricingResource):
            pricing = self.pricing.to_dict()
        else:
            pricing = self.pricing

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "accepted": accepted,
                "refusals": refusals,
                "rejected": rejected,
                "would_accept": would_accept,
            }
        )
        if estimated_cost is not UNSET:
            field_dict["estimated_cost"] = estimated_cost
        if pricing is not UNSET:
            field_dict["pricing"] = pricing

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cost_resource import CostResource  # noqa: PLC0415
        from ..models.expected_pricing_resource import ExpectedPricingResource  # noqa: PLC0415
        from ..models.problem import Problem  # noqa: PLC0415
        from ..models.rejected_row_resource import RejectedRowResource  # noqa: PLC0415

        d = dict(src_dict)
        accepted = d.pop("accepted")

        refusals = []
        _refusals = d.pop("refusals")
        for refusals_item_data in _refusals:
            refusals_item = Problem.from_dict(refusals_item_data)

            refusals.append(refusals_item)

        rejected = []
        _rejected = d.pop("rejected")
        for rejected_item_data in _rejected:
            rejected_item = RejectedRowResource.from_dict(rejected_item_data)

            rejected.append(rejected_item)

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

        broadcast_dry_run_resource = cls(
            accepted=accepted,
            refusals=refusals,
            rejected=rejected,
            would_accept=would_accept,
            estimated_cost=estimated_cost,
            pricing=pricing,
        )

        broadcast_dry_run_resource.additional_properties = d
        return broadcast_dry_run_resource

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
