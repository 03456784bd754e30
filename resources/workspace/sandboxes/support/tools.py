"""Customer-support sample tools: tickets and a small knowledge base."""

TICKETS = [
    {"id": 101, "subject": "Dock not detected", "status": "open", "priority": "high", "customer": "u2"},
    {"id": 102, "subject": "Refund for cancelled order", "status": "closed", "priority": "low", "customer": "u4"},
    {"id": 103, "subject": "Keyboard key sticks", "status": "open", "priority": "medium", "customer": "u1"},
    {"id": 104, "subject": "Monitor arrived scratched", "status": "pending", "priority": "high", "customer": "u3"},
]

ARTICLES = [
    {"id": "kb1", "title": "Resetting the USB-C dock", "body": "Unplug power for 10 seconds, then reconnect."},
    {"id": "kb2", "title": "Refund policy", "body": "Cancelled orders are refunded within 5 business days."},
    {"id": "kb3", "title": "Cleaning mechanical keyboards", "body": "Remove the keycap and use compressed air."},
]


@tool(grade=(1, 0), options={"status": ["open", "pending", "closed", "any"]})
def list_tickets(status: str = "any", limit: int = 20) -> ToolResponse:
    """List support tickets, newest first.

    Args:
        status: Only tickets with this status ("any" for all).
        limit: At most this many tickets.
    """
    rows = [t for t in TICKETS if status == "any" or t["status"] == status]
    return ToolResponse(success=True, data=[dict(t) for t in rows[:limit]])


@tool(grade=(1, 0), examples={"ticket_id": [101, 104]})
def get_ticket(ticket_id: int) -> ToolResponse:
    """Get one ticket by its numeric id.

    Args:
        ticket_id: The ticket number.
    """
    for t in TICKETS:
        if t["id"] == ticket_id:
            return ToolResponse(success=True, data=dict(t))
    return ToolResponse(success=False, message=f"no ticket {ticket_id}")


@tool(grade=(1, 0), examples={"query": ["refund", "dock"]}, source={"query": "context"})
def search_kb(query: str, max_results: int = 3) -> ToolResponse:
    """Search the knowledge base by keyword (case-insensitive, title and body).

    Args:
        query: Words to look for.
        max_results: At most this many articles.
    """
    q = query.lower()
    hits = [a for a in ARTICLES if q in a["title"].lower() or q in a["body"].lower()]
    return ToolResponse(success=True, data=[dict(a) for a in hits[:max_results]])


@tool(grade=(1, 1), display_name={"ticket_id": "Ticket", "text": "Note"})
def add_note(ticket_id: int, text: str) -> ToolResponse:
    """Add an internal note to a ticket (lives for the current script only in this sample).

    Args:
        ticket_id: The ticket number.
        text: The note to add.

    Returns:
        {ticket_id, notes}: the ticket's notes after adding this one.
    """
    for t in TICKETS:
        if t["id"] == ticket_id:
            t.setdefault("notes", []).append(text)
            return ToolResponse(success=True, data={"ticket_id": ticket_id, "notes": list(t["notes"])})
    return ToolResponse(success=False, message=f"no ticket {ticket_id}")
