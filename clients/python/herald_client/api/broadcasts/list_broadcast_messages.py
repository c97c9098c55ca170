from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.message_page_resource import MessagePageResource
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    status: str | Unset = UNSET,
    to: str | Unset = UNSET,
    client_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["status"] = status

    params["to"] = to

    params["client_reference"] = client_reference

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/broadcasts/{id}/messages".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MessagePageResource | Problem | None:
    if response.status_code == 200:
        response_200 = MessagePageResource.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[MessagePageResource | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    to: str | Unset = UNSET,
    client_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[MessagePageResource | Problem]:
    """A broadcast's messages, newest first, in pages: the message log's page and filters.

    Args:
        id (str):
        status (str | Unset):
        to (str | Unset):
        client_reference (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagePageResource | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        status=status,
        to=to,
        client_reference=client_reference,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    to: str | Unset = UNSET,
    client_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> MessagePageResource | Problem | None:
    """A broadcast's messages, newest first, in pages: the message log's page and filters.

    Args:
        id (str):
        status (str | Unset):
        to (str | Unset):
        client_reference (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagePageResource | Problem
    """

    return sync_detailed(
        id=id,
        client=client,
        status=status,
        to=to,
        client_reference=client_reference,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    to: str | Unset = UNSET,
    client_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[MessagePageResource | Problem]:
    """A broadcast's messages, newest first, in pages: the message log's page and filters.

    Args:
        id (str):
        status (str | Unset):
        to (str | Unset):
        client_reference (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MessagePageResource | Problem]
    """

    kwargs = _get_kwargs(
        id=id,
        status=status,
        to=to,
        client_reference=client_reference,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient,
    status: str | Unset = UNSET,
    to: str | Unset = UNSET,
    client_reference: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> MessagePageResource | Problem | None:
    """A broadcast's messages, newest first, in pages: the message log's page and filters.

    Args:
        id (str):
        status (str | Unset):
        to (str | Unset):
        client_reference (str | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MessagePageResource | Problem
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            status=status,
            to=to,
            client_reference=client_reference,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
