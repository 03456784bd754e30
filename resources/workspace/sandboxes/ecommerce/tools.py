"""E-commerce sample tools over a small built-in dataset.

The worker injects `tool` and `ToolResponse`; tools.py needs no imports.
"""

USERS = {
    "u1": {"id": "u1", "name": "Ada Lovelace", "email": "ada@example.com", "tier": "gold", "city": "London"},
    "u2": {"id": "u2", "name": "Alan Turing", "email": "alan@example.com", "tier": "silver", "city": "Manchester"},
    "u3": {"id": "u3", "name": "Grace Hopper", "email": "grace@example.com", "tier": "gold", "city": "New York"},
    "u4": {"id": "u4", "name": "Edsger Dijkstra", "email": "edsger@example.com", "tier": "bronze", "city": "Austin"},
}

PRODUCTS = {
    "p1": {"id": "p1", "name": "Mechanical keyboard", "price": 129.0},
    "p2": {"id": "p2", "name": "USB-C dock", "price": 89.5},
    "p3": {"id": "p3", "name": "27in monitor", "price": 319.99},
    "p4": {"id": "p4", "name": "Desk lamp", "price": 24.0},
}

ORDERS = [
    {"id": "o1", "user_id": "u1", "product_id": "p1", "quantity": 1, "total": 129.0, "status": "shipped"},
    {"id": "o2", "user_id": "u2", "product_id": "p3", "quantity": 2, "total": 639.98, "status": "pending"},
    {"id": "o3", "user_id": "u1", "product_id": "p4", "quantity": 3, "total": 72.0, "status": "delivered"},
    {"id": "o4", "user_id": "u3", "product_id": "p2", "quantity": 1, "total": 89.5, "status": "pending"},
    {"id": "o5", "user_id": "u4", "product_id": "p1", "quantity": 1, "total": 129.0, "status": "cancelled"},
    {"id": "o6", "user_id": "u3", "product_id": "p3", "quantity": 1, "total": 319.99, "status": "shipped"},
]

INVENTORY = {
    "New York": {"p1": 12, "p2": 0, "p3": 4, "p4": 30},
    "Berlin": {"p1": 3, "p2": 18, "p3": 0, "p4": 7},
    "Tokyo": {"p1": 0, "p2": 5, "p3": 9, "p4": 2},
}


@tool(grade=(1, 0))
def get_orders() -> ToolResponse:
    """List every order in the store.

    Returns:
        A list of orders, each {id, user_id, product_id, quantity, total, status}.
    """
    return ToolResponse(success=True, data=[dict(o) for o in ORDERS])


@tool(
    grade=(1, 0),
    examples={"user_id": ["u1", "u3"]},
    source={"user_id": "history"},
    display_name={"user_id": "User ID"},
)
def get_user(user_id: str) -> ToolResponse:
    """Look up one customer by id.

    Args:
        user_id: The customer's id as it appears in orders (e.g. "u1").

    Returns:
        The user {id, name, email, tier, city}.
    """
    user = USERS.get(user_id)
    if user is None:
        return ToolResponse(success=False, message=f"no user with id {user_id!r}; known ids: {sorted(USERS)}")
    return ToolResponse(success=True, data=dict(user))


@tool(
    grade=(1, 0),
    options={"warehouse": ["New York", "Berlin", "Tokyo"]},
    examples={"product_id": ["p1", "p3"]},
    display_name={"product_id": "Product ID", "warehouse": "Warehouse"},
)
def check_inventory(product_id: str, warehouse: str = "New York") -> ToolResponse:
    """Check how many units of a product a warehouse holds.

    Args:
        product_id: The product's id as it appears in orders (e.g. "p1").
        warehouse: Which warehouse to look in.

    Returns:
        {product_id, warehouse, name, in_stock, price}.
    """
    stock = INVENTORY.get(warehouse)
    if stock is None:
        return ToolResponse(success=False, message=f"unknown warehouse {warehouse!r}; use one of {sorted(INVENTORY)}")
    product = PRODUCTS.get(product_id)
    if product is None:
        return ToolResponse(success=False, message=f"no product with id {product_id!r}")
    return ToolResponse(
        success=True,
        data={
            "product_id": product_id,
            "warehouse": warehouse,
            "name": product["name"],
            "in_stock": stock.get(product_id, 0),
            "price": product["price"],
        },
    )


@tool(grade=(1, 0))
def get_product(product_id: str) -> ToolResponse:
    """Look up one product by id.

    Args:
        product_id: The product's id (e.g. "p2").

    Returns:
        The product {id, name, price}.
    """
    product = PRODUCTS.get(product_id)
    if product is None:
        return ToolResponse(success=False, message=f"no product with id {product_id!r}; known ids: {sorted(PRODUCTS)}")
    return ToolResponse(success=True, data=dict(product))
