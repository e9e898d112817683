"""Security tests: who may do what, bad input, races.

- ``test_http_matrix``: every named URL x every persona over HTTP (the rows are
  in ``matrix.py``); a new view without rows fails
  ``test_every_url_pattern_is_in_the_matrix``.
- ``test_socket_matrix``: the battle websocket x every persona x every client
  message type; foreign and missing Origins refused.
- ``test_hardening``: CSRF on every write, ``check --deploy`` and security
  headers with production settings, login throttling (django-axes), payload
  bounds.
- ``test_fuzz``: hypothesis against the action endpoint, the services and the
  websocket receive handler.
- ``test_races``: concurrent submissions, one connection per thread (run on
  PostgreSQL in CI).

Admin policy: a superuser who is not a member of a campaign manages data in
Django's admin (/admin/: sheets, campaigns, users) but has no special powers
in the app: campaign and battle pages answer 404 and battle sockets are
refused, as for any non-member. To run a table, the admin joins the campaign
with a role like anyone else. Only staff reach /admin/.
"""
