from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.template_edit_request import TemplateEditRequest
from ...models.template_resource import TemplateResource
from ...types import Response


def _get_kwargs(
    name: str,
    language: str,
    *,
    body: TemplateEditRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/templates/{name}/{language}".format(
            name=quote(str(name), safe=""),
            language=quote(str(language), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TemplateResource | None:
    if response.status_code == 200:
        response_200 = TemplateResource.from_dict(response.json())

        return response_200

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
) -> Response[Problem | TemplateResource]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    name: str,
    language: str,
    *,
    client: AuthenticatedClient,
    body: TemplateEditRequest,
) -> Response[Problem | TemplateResource]:
    """Edit a template: new `components` (and optionally `category`); it goes back to review.

    Args:
        name (str):
        language (str):
        body (TemplateEditRequest): New components for a template, which goes back to review;
            `name` and `language` are the path's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TemplateResource]
    """

    kwargs = _get_kwargs(
        name=name,
        language=language,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    name: str,
    language: str,
    *,
    client: AuthenticatedClient,
    body: TemplateEditRequest,
) -> Problem | TemplateResource | None:
    """Edit a template: new `components` (and optionally `category`); it goes back to review.

    Args:
        name (str):
        language (str):
        body (TemplateEditRequest): New components for a template, which goes back to review;
            `name` and `language` are the path's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TemplateResource
    """

    return sync_detailed(
        name=name,
        language=language,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    name: str,
    language: str,
    *,
    client: AuthenticatedClient,
    body: TemplateEditRequest,
) -> Response[Problem | TemplateResource]:
    """Edit a template: new `components` (and optionally `category`); it goes back to review.

    Args:
        name (str):
        language (str):
        body (TemplateEditRequest): New components for a template, which goes back to review;
            `name` and `language` are the path's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TemplateResource]
    """

    kwargs = _get_kwargs(
        name=name,
        language=language,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    name: str,
    language: str,
    *,
    client: AuthenticatedClient,
    body: TemplateEditRequest,
) -> Problem | TemplateResource | None:
    """Edit a template: new `components` (and optionally `category`); it goes back to review.

    Args:
        name (str):
        language (str):
        body (TemplateEditRequest): New components for a template, which goes back to review;
            `name` and `language` are the path's.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TemplateResource
    """

    return (
        await asyncio_detailed(
            name=name,
            language=language,
            client=client,
            body=body,
        )
    ).parsed
