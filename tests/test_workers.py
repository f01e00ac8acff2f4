"""`make test`'s two xdist workers: the files whose tests read the session's shared launches must be the ones
conftest.py schedules on one worker together, or those launches run once on each worker."""
from conftest import SHARED_LAUNCH_FILES


def test_every_file_reading_the_shared_launches_is_scheduled_together(request):
    reading = {item.nodeid.split("::", 1)[0] for item in request.session.items
               if "shared_checks" in getattr(item, "fixturenames", ())}
    if not reading:  # a run of some files only
        assert not any(i.nodeid.startswith(tuple(SHARED_LAUNCH_FILES)) for i in request.session.items)
        return
    assert reading <= SHARED_LAUNCH_FILES, reading - SHARED_LAUNCH_FILES
    assert len(SHARED_LAUNCH_FILES) >= 2
