// cgif_shim.h — giflib behind calls that read a GIF, held in memory or read through a file's
// descriptor a buffer at a time, and return a status and a message (giflib reports errors by return codes; the shim turns them into sentences and keeps
// its read callback in C). Frames are read one at a time with giflib's record loop and composed
// onto the logical screen as a browser shows them; nothing holds more than the screen and, for
// "restore to previous" frames, a saved copy of the frame's rectangle. The screen is allocated
// untouched, so a large screen with small frames costs only the pages under them.
#ifndef CGIF_SHIM_H
#define CGIF_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes.
enum {
  CGIF_OK = 0,
  CGIF_CORRUPT = 1,    ///< not a valid GIF
  CGIF_TRUNCATED = 2,  ///< the file ends before a frame's data does
  CGIF_NO_MEMORY = 3,
  CGIF_INVALID = 4,    ///< a bad argument
  CGIF_TOO_LARGE = 5,  ///< more frames, or a larger frame, than the caller's limits allow
  CGIF_END = 6,        ///< `cgif_next_frame`: there are no more frames
};

/// What a GIF's records say, gathered without decoding any pixels.
typedef struct {
  int width, height;   ///< the logical screen (canvas)
  int frame_count;
  int loop_count;      ///< the NETSCAPE2.0 extension's count (0: forever), or -1 without one
  int has_alpha;       ///< some frame has a transparent colour or does not cover the screen
  long long held_bytes;  ///< the most a reader's screen and saved rectangle hold: the pages of the
                         ///< screen under the frames' bounding box, and the largest frame that
                         ///< restores the previous screen
  size_t xmp_offset, xmp_length;  ///< where the data sub-blocks of the first "XMP DataXMP" application
                                  ///< extension lie in the file, their length bytes included and
                                  ///< the terminating empty block not (0 and 0 without one)
} cgif_info;

/// Walks every record of `data` (skipping the compressed pixels), counting frames and storing
/// each frame's delay in centiseconds in `delays` (first `delays_capacity` frames; may be NULL).
/// More than `max_frames` frames, or a frame of more than `max_frame_pixels` pixels, is
/// CGIF_TOO_LARGE; a frame without a colour table is CGIF_CORRUPT; a file with no frame too.
int cgif_read_info(const uint8_t *data, size_t size, int max_frames, long long max_frame_pixels,
                   cgif_info *info, int *delays, int delays_capacity, char *message, size_t capacity);

/// The bytes of a file the shim holds while it reads it through the descriptor: one buffer,
/// whatever the file's size or number of frames.
#define CGIF_FILE_BUFFER ((size_t)65536)

/// `cgif_read_info` of the first `size` bytes of the file open on `fd`, read with pread through a
/// buffer of `CGIF_FILE_BUFFER` bytes (the descriptor's offset is not used nor moved). A file
/// shorter than `size` is CGIF_TRUNCATED.
int cgif_read_info_file(int fd, size_t size, int max_frames, long long max_frame_pixels, cgif_info *info, int *delays,
                        int delays_capacity, char *message, size_t capacity);

/// A GIF being read frame by frame (owns the screen; reads the file's bytes only during a call,
/// so they may move between calls: a Swift `Data` is passed as it is, never copied).
typedef struct cgif_reader cgif_reader;

/// Opens `data` for `cgif_next_frame`, reading its header. Returns NULL with `*status` and
/// `message` on failure.
cgif_reader *cgif_open(const uint8_t *data, size_t size, long long max_frame_pixels, int *status, char *message,
                       size_t capacity);

/// `cgif_open` of the first `size` bytes of the file open on `fd`, which must stay open while the
/// reader lives: the reader reads it with pread through its buffer of `CGIF_FILE_BUFFER` bytes, and
/// is then given NULL and any size as its `data`. A file that shrinks meanwhile is CGIF_TRUNCATED.
cgif_reader *cgif_open_file(int fd, size_t size, long long max_frame_pixels, int *status, char *message, size_t capacity);

/// The bytes of its file a reader opened by `cgif_open_file` holds (its buffer); 0 for bytes in memory.
long long cgif_held_file_bytes(const cgif_reader *reader);

/// Composes the next frame of `data` (the `size` bytes `cgif_open` was given, wherever they are
/// now) on the screen and copies the screen to `out` (rows `stride` bytes
/// apart) as RGB (`channels` 3) or straight-alpha RGBA (4), with the frame's delay in
/// centiseconds in `*delay`. Before a frame is drawn, the previous one is disposed of as it asked
/// (2: its rectangle becomes transparent; 3: the screen returns to what it was before it); the
/// screen starts transparent; transparent pixels keep what is below them; colour indices past the
/// colour table are opaque black; pixels outside the screen are dropped. Returns CGIF_END after
/// the last frame.
int cgif_next_frame(cgif_reader *reader, const uint8_t *data, size_t size, int channels, uint8_t *out, size_t stride,
                    int *delay, char *message, size_t capacity);

/// Composes the next frame on the screen as `cgif_next_frame` does, without copying it out.
int cgif_draw_frame(cgif_reader *reader, const uint8_t *data, size_t size, int *delay, char *message, size_t capacity);

/// Copies `count` rows of the screen from row `first` to `out` (rows `stride` bytes apart) as RGB
/// (`channels` 3) or straight-alpha RGBA (4); CGIF_INVALID for rows outside the screen.
int cgif_copy_rows(const cgif_reader *reader, int first, int count, int channels, uint8_t *out, size_t stride);

/// Closes a reader (NULL is fine).
void cgif_close(cgif_reader *reader);

#ifdef __cplusplus
}
#endif
#endif
