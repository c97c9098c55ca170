from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.broadcast_created_resource import BroadcastCreatedResource
from ...models.broadcast_dry_run_resource import BroadcastDryRunResource
from ...models.broadcast_request import BroadcastRequest
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: BroadcastRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["dry_run"] = dry_run

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/broadcasts",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BroadcastCreatedResource | BroadcastDryRunResource | Problem | None:
    if response.status_code == 200:
        response_200 = BroadcastDryRunResource.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = BroadcastCreatedResource.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Problem.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[BroadcastCreatedResource | BroadcastDryRunResource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: BroadcastRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[BroadcastCreatedResource | BroadcastDryRunResource | Problem]:
    """Create a broadcast: one template to up to 10,000 recipients.

     Every row is checked on its own, as a single template send would be (its fields, its variables
    against
    the template, its files, a repeated recipient, blocks and marketing opt-outs): the invalid rows are
    left
    out and listed in `rejected` with their index, and the valid ones are accepted as ONE broadcast, all
    counted against the monthly quota together: if the quota cannot take them all, nothing is stored
    (`429 quota_exceeded`). The messages are released to dispatch at the sender's pace. A retry with the
    same `Idempotency-Key` and body answers the same broadcast again, with `Idempotent-Replayed: true`.

    `?dry_run=true` makes every check the create makes, every row judged the same way, and answers `200`
    with what the broadcast would meet: nothing is stored, counted or sent.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (BroadcastRequest): `POST /api/v1/broadcasts`: one template to up to 10,000
            recipients. Example: {'header': {'media_id': 'med_01JD0000000000000000000000', 'type':
            'image'}, 'recipients': [{'client_reference': 'order-1234', 'to': '+15551234567',
            'variables': ['Ana', '#1234', 'Friday']}, {'to': '+15557654321', 'variables': ['Bo',
            '#1235', 'Monday']}], 'send_at': '2026-12-01T09:00:00Z', 'template': {'language': 'en_US',
            'name': 'order_shipped'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BroadcastCreatedResource | BroadcastDryRunResource | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: BroadcastRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> BroadcastCreatedResource | BroadcastDryRunResource | Problem | None:
    """Create a broadcast: one template to up to 10,000 recipients.

     Every row is checked on its own, as a single template send would be (its fields, its variables
    against
    the template, its files, a repeated recipient, blocks and marketing opt-outs): the invalid rows are
    left
    out and listed in `rejected` with their index, and the valid ones are accepted as ONE broadcast, all
    counted against the monthly quota together: if the quota cannot take them all, nothing is stored
    (`429 quota_exceeded`). The messages are released to dispatch at the sender's pace. A retry with the
    same `Idempotency-Key` and body answers the same broadcast again, with `Idempotent-Replayed: true`.

    `?dry_run=true` makes every check the create makes, every row judged the same way, and answers `200`
    with what the broadcast would meet: nothing is stored, counted or sent.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (BroadcastRequest): `POST /api/v1/broadcasts`: one template to up to 10,000
            recipients. Example: {'header': {'media_id': 'med_01JD0000000000000000000000', 'type':
            'image'}, 'recipients': [{'client_reference': 'order-1234', 'to': '+15551234567',
            'variables': ['Ana', '#1234', 'Friday']}, {'to': '+15557654321', 'variables': ['Bo',
            '#1235', 'Monday']}], 'send_at': '2026-12-01T09:00:00Z', 'template': {'language': 'en_US',
            'name': 'order_shipped'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BroadcastCreatedResource | BroadcastDryRunResource | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: BroadcastRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[BroadcastCreatedResource | BroadcastDryRunResource | Problem]:
    """Create a broadcast: one template to up to 10,000 recipients.

     Every row is checked on its own, as a single template send would be (its fields, its variables
    against
    the template, its files, a repeated recipient, blocks and marketing opt-outs): the invalid rows are
    left
    out and listed in `rejected` with their index, and the valid ones are accepted as ONE broadcast, all
    counted against the monthly quota together: if the quota cannot take them all, nothing is stored
    (`429 quota_exceeded`). The messages are released to dispatch at the sender's pace. A retry with the
    same `Idempotency-Key` and body answers the same broadcast again, with `Idempotent-Replayed: true`.

    `?dry_run=true` makes every check the create makes, every row judged the same way, and answers `200`
    with what the broadcast would meet: nothing is stored, counted or sent.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (BroadcastRequest): `POST /api/v1/broadcasts`: one template to up to 10,000
            recipients. Example: {'header': {'media_id': 'med_01JD0000000000000000000000', 'type':
            'image'}, 'recipients': [{'client_reference': 'order-1234', 'to': '+15551234567',
            'variables': ['Ana', '#1234', 'Friday']}, {'to': '+15557654321', 'variables': ['Bo',
            '#1235', 'Monday']}], 'send_at': '2026-12-01T09:00:00Z', 'template': {'language': 'en_US',
            'name': 'order_shipped'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BroadcastCreatedResource | BroadcastDryRunResource | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        dry_run=dry_run,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: BroadcastRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> BroadcastCreatedResource | BroadcastDryRunResource | Problem | None:
    """Create a broadcast: one template to up to 10,000 recipients.

     Every row is checked on its own, as a single template send would be (its fields, its variables
    against
    the template, its files, a repeated recipient, blocks and marketing opt-outs): the invalid rows are
    left
    out and listed in `rejected` with their index, and the valid ones are accepted as ONE broadcast, all
    counted against the monthly quota together: if the quota cannot take them all, nothing is stored
    (`429 quota_exceeded`). The messages are released to dispatch at the sender's pace. A retry with the
    same `Idempotency-Key` and body answers the same broadcast again, with `Idempotent-Replayed: true`.

    `?dry_run=true` makes every check the create makes, every row judged the same way, and answers `200`
    with what the broadcast would meet: nothing is stored, counted or sent.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (BroadcastRequest): `POST /api/v1/broadcasts`: one template to up to 10,000
            recipients. Example: {'header': {'media_id': 'med_01JD0000000000000000000000', 'type':
            'image'}, 'recipients': [{'client_reference': 'order-1234', 'to': '+15551234567',
            'variables': ['Ana', '#1234', 'Friday']}, {'to': '+15557654321', 'variables': ['Bo',
            '#1235', 'Monday']}], 'send_at': '2026-12-01T09:00:00Z', 'template': {'language': 'en_US',
            'name': 'order_shipped'}}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BroadcastCreatedResource | BroadcastDryRunResource | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            dry_run=dry_run,
            idempotency_key=idempotency_key,
        )
    ).parsed
