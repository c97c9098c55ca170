from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.usage_resource import UsageResource
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    from_: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["from"] = from_

    params["until"] = until

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/usage",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | UsageResource | None:
    if response.status_code == 200:
        response_200 = UsageResource.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[Problem | UsageResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> Response[Problem | UsageResource]:
    """Messages and their estimated cost, by UTC day and network pricing category.

     A message counts on the day it was accepted, in the category the network's status reports gave it
    (`null` until one did). Costs come from the organization's rate card and appear only where it has a
    rate.

    Args:
        from_ (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UsageResource]
    """

    kwargs = _get_kwargs(
        from_=from_,
        until=until,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> Problem | UsageResource | None:
    """Messages and their estimated cost, by UTC day and network pricing category.

     A message counts on the day it was accepted, in the category the network's status reports gave it
    (`null` until one did). Costs come from the organization's rate card and appear only where it has a
    rate.

    Args:
        from_ (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UsageResource
    """

    return sync_detailed(
        client=client,
        from_=from_,
        until=until,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> Response[Problem | UsageResource]:
    """Messages and their estimated cost, by UTC day and network pricing category.

     A message counts on the day it was accepted, in the category the network's status reports gave it
    (`null` until one did). Costs come from the organization's rate card and appear only where it has a
    rate.

    Args:
        from_ (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UsageResource]
    """

    kwargs = _get_kwargs(
        from_=from_,
        until=until,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
    until: str | Unset = UNSET,
) -> Problem | UsageResource | None:
    """Messages and their estimated cost, by UTC day and network pricing category.

     A message counts on the day it was accepted, in the category the network's status reports gave it
    (`null` until one did). Costs come from the organization's rate card and appear only where it has a
    rate.

    Args:
        from_ (str | Unset):
        until (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UsageResource
    """

    return (
        await asyncio_detailed(
            client=client,
            from_=from_,
            until=until,
        )
    ).parsed
