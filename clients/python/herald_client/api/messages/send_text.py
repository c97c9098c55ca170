from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dry_run_resource import DryRunResource
from ...models.message_resource import MessageResource
from ...models.problem import Problem
from ...models.send_text_request import SendTextRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SendTextRequest,
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
        "url": "/api/v1/messages/send-text",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DryRunResource | MessageResource | Problem | None:
    if response.status_code == 200:
        response_200 = DryRunResource.from_dict(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = MessageResource.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[DryRunResource | MessageResource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SendTextRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DryRunResource | MessageResource | Problem]:
    """Send a free-form text message; only inside the 24-hour service window.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendTextRequest): `POST /api/v1/messages/send-text`, and the text form of send-
            template. Example: {'message': 'Hi', 'preview_url': False, 'to': '+15551234567'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DryRunResource | MessageResource | Problem]
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
    body: SendTextRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> DryRunResource | MessageResource | Problem | None:
    """Send a free-form text message; only inside the 24-hour service window.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendTextRequest): `POST /api/v1/messages/send-text`, and the text form of send-
            template. Example: {'message': 'Hi', 'preview_url': False, 'to': '+15551234567'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DryRunResource | MessageResource | Problem
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
    body: SendTextRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DryRunResource | MessageResource | Problem]:
    """Send a free-form text message; only inside the 24-hour service window.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendTextRequest): `POST /api/v1/messages/send-text`, and the text form of send-
            template. Example: {'message': 'Hi', 'preview_url': False, 'to': '+15551234567'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DryRunResource | MessageResource | Problem]
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
    body: SendTextRequest,
    dry_run: bool | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> DryRunResource | MessageResource | Problem | None:
    """Send a free-form text message; only inside the 24-hour service window.

    Args:
        dry_run (bool | Unset):
        idempotency_key (None | str | Unset):
        body (SendTextRequest): `POST /api/v1/messages/send-text`, and the text form of send-
            template. Example: {'message': 'Hi', 'preview_url': False, 'to': '+15551234567'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DryRunResource | MessageResource | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            dry_run=dry_run,
            idempotency_key=idempotency_key,
        )
    ).parsed
