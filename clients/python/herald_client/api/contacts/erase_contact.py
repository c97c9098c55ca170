from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.erasure_resource import ErasureResource
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    recipient: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/contacts/{recipient}".format(
            recipient=quote(str(recipient), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErasureResource | Problem | None:
    if response.status_code == 200:
        response_200 = ErasureResource.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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
) -> Response[ErasureResource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErasureResource | Problem]:
    """Erases what the organization holds about a person (docs/api.md §7.2): their queued messages are
    cancelled first, then their messages' and inbound messages' content, contact, windows, event
    payloads and
    files are erased, keeping ids, times, statuses and pricing under a keyed marker. Idempotent. A
    suspended
    or closed organization may still erase (privacy duties do not stop with the account), so no `403`.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErasureResource | Problem]
    """

    kwargs = _get_kwargs(
        recipient=recipient,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> ErasureResource | Problem | None:
    """Erases what the organization holds about a person (docs/api.md §7.2): their queued messages are
    cancelled first, then their messages' and inbound messages' content, contact, windows, event
    payloads and
    files are erased, keeping ids, times, statuses and pricing under a keyed marker. Idempotent. A
    suspended
    or closed organization may still erase (privacy duties do not stop with the account), so no `403`.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErasureResource | Problem
    """

    return sync_detailed(
        recipient=recipient,
        client=client,
    ).parsed


async def asyncio_detailed(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErasureResource | Problem]:
    """Erases what the organization holds about a person (docs/api.md §7.2): their queued messages are
    cancelled first, then their messages' and inbound messages' content, contact, windows, event
    payloads and
    files are erased, keeping ids, times, statuses and pricing under a keyed marker. Idempotent. A
    suspended
    or closed organization may still erase (privacy duties do not stop with the account), so no `403`.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErasureResource | Problem]
    """

    kwargs = _get_kwargs(
        recipient=recipient,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    recipient: str,
    *,
    client: AuthenticatedClient,
) -> ErasureResource | Problem | None:
    """Erases what the organization holds about a person (docs/api.md §7.2): their queued messages are
    cancelled first, then their messages' and inbound messages' content, contact, windows, event
    payloads and
    files are erased, keeping ids, times, statuses and pricing under a keyed marker. Idempotent. A
    suspended
    or closed organization may still erase (privacy duties do not stop with the account), so no `403`.

    Args:
        recipient (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErasureResource | Problem
    """

    return (
        await asyncio_detailed(
            recipient=recipient,
            client=client,
        )
    ).parsed
