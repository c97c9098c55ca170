from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_webhook_request import CreateWebhookRequest
from ...models.problem import Problem
from ...models.webhook_with_secret_resource import WebhookWithSecretResource
from ...types import Response


def _get_kwargs(
    *,
    body: CreateWebhookRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | WebhookWithSecretResource | None:
    if response.status_code == 201:
        response_201 = WebhookWithSecretResource.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[Problem | WebhookWithSecretResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,
) -> Response[Problem | WebhookWithSecretResource]:
    """Register an endpoint. The answer carries its signing secret, shown this once.

    Args:
        body (CreateWebhookRequest): `POST /api/v1/webhooks`. Example: {'description': 'orders',
            'events': ['message.status', 'message.failed'], 'url': 'https://example.com/herald'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookWithSecretResource]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,
) -> Problem | WebhookWithSecretResource | None:
    """Register an endpoint. The answer carries its signing secret, shown this once.

    Args:
        body (CreateWebhookRequest): `POST /api/v1/webhooks`. Example: {'description': 'orders',
            'events': ['message.status', 'message.failed'], 'url': 'https://example.com/herald'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookWithSecretResource
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,
) -> Response[Problem | WebhookWithSecretResource]:
    """Register an endpoint. The answer carries its signing secret, shown this once.

    Args:
        body (CreateWebhookRequest): `POST /api/v1/webhooks`. Example: {'description': 'orders',
            'events': ['message.status', 'message.failed'], 'url': 'https://example.com/herald'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WebhookWithSecretResource]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateWebhookRequest,
) -> Problem | WebhookWithSecretResource | None:
    """Register an endpoint. The answer carries its signing secret, shown this once.

    Args:
        body (CreateWebhookRequest): `POST /api/v1/webhooks`. Example: {'description': 'orders',
            'events': ['message.status', 'message.failed'], 'url': 'https://example.com/herald'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WebhookWithSecretResource
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
