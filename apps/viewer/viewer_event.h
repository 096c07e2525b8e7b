/* Input events of the viewer, independent of SDL: the SDL shell translates its events into these, and replay files
 * (replay.h) hold them as text. Positions are fractions of the window: x from the left, y from the top, in [0,1]
 * inside it. */
#ifndef VIEWER_EVENT_H
#define VIEWER_EVENT_H

/** Positions may lie off the window (a drag that leaves it) but not far: -1 to 2 window widths or heights, the range of
 *  a replay file; further off the pointer is as far from the picture as it matters. */
#define VIEWER_FRACTION_MIN (-1.0f)
#define VIEWER_FRACTION_MAX 2.0f
/** Wheel turns of one event: -1000 to 1000 notches, the range of a replay file; a thousand already zoom from one end
 *  to the other. */
#define VIEWER_WHEEL_MAX 1000.0f

typedef enum viewer_event_kind {
    VIEWER_EVENT_MOVE = 0, /**< pointer moved to (x, y) */
    VIEWER_EVENT_DOWN,     /**< button pressed at (x, y) */
    VIEWER_EVENT_UP,       /**< button released at (x, y) */
    VIEWER_EVENT_KEY,      /**< key pressed */
    VIEWER_EVENT_WHEEL,    /**< wheel turned by `wheel` notches (positive: away from the user) */
    VIEWER_EVENT_LEAVE,    /**< pointer left the window */
    VIEWER_EVENT_QUIT      /**< close the viewer */
} viewer_event_kind;

typedef enum viewer_button { VIEWER_BUTTON_LEFT = 1, VIEWER_BUTTON_RIGHT = 3 } viewer_button;

/** Keys that are not printable characters (printable keys are their lower-case ASCII code). */
enum { VIEWER_KEY_ESCAPE = 27, VIEWER_KEY_LEFT = 0x101, VIEWER_KEY_RIGHT, VIEWER_KEY_UP, VIEWER_KEY_DOWN };

typedef struct viewer_event {
    double time;            /**< s since the viewer started (viewer clock; fixed 1/60 s per frame when replaying) */
    viewer_event_kind kind;
    float x, y;             /**< window fractions (MOVE, DOWN, UP) */
    int button;             /**< viewer_button (DOWN, UP) */
    int shift;              /**< shift held (DOWN): in 3D a shift-drag splats instead of orbiting */
    int key;                /**< KEY: ASCII code ('+', 'v', ' ') or VIEWER_KEY_* */
    float wheel;            /**< WHEEL: notches */
} viewer_event;

#endif
