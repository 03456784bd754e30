/**
 * Two Python skills on the sample workspace's `get_user`, for the tests of skill-call records (trace
 * export and the workbench): one that calls itself `depth` times, one that raises for a customer who is
 * not gold.
 */
export const CHAIN_PY = `def chain_tier(user_id: str, depth: int) -> str:
    """A customer's tier, looked up once more at each depth.

    Args:
        user_id: The customer's id (e.g. "u1").
        depth: How many more times to look it up.

    Returns:
        The tier.
    """
    tier = get_user(user_id=user_id).data["tier"]
    if depth > 0:
        return chain_tier(user_id=user_id, depth=depth - 1)
    return tier
`;

export const STRICT_PY = `def strict_tier(user_id: str) -> str:
    """A customer's tier, which must be gold.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The tier.
    """
    tier = get_user(user_id=user_id).data["tier"]
    if tier != "gold":
        raise ValueError(user_id + " is " + tier + ", not gold")
    return tier
`;
