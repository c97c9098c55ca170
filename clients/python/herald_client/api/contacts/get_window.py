from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.window_resource import WindowResource
from ...types import UNSET, Response, Unset


def _get_kwargs(
    number: str,
    *,
    from_: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["from"] = from_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/contacts/{number}/window".format(
            number=quote(str(number), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | WindowResource | None:
    if response.status_code == 200:
        response_200 = WindowResource.from_dict(response.json())

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
) -> Response[Problem | WindowResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    number: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
) -> Response[Problem | WindowResource]:
    """Whether free-form messages to a number may go now (the 24-hour service window).

    Args:
        number (str):
        from_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WindowResource]
    """

    kwargs = _get_kwargs(
        number=number,
        from_=from_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    number: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
) -> Problem | WindowResource | None:
    """Whether free-form messages to a number may go now (the 24-hour service window).

    Args:
        number (str):
        from_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WindowResource
    """

    return sync_detailed(
        number=number,
        client=client,
        from_=from_,
    ).parsed


async def asyncio_detailed(
    number: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
) -> Response[Problem | WindowResource]:
    """Whether free-form messages to a number may go now (the 24-hour service window).

    Args:
        number (str):
        from_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | WindowResource]
    """

    kwargs = _get_kwargs(
        number=number,
        from_=from_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    number: str,
    *,
    client: AuthenticatedClient,
    from_: str | Unset = UNSET,
) -> Problem | WindowResource | None:
    """Whether free-form messages to a number may go now (the 24-hour service window).

    Args:
        number (str):
        from_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | WindowResource
    """

    return (
        await asyncio_detailed(
            number=number,
            client=client,
            from_=from_,
        )
    ).parsed
