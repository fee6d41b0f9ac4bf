# Builds parser/testdata/bench/phpbb3310_thread_25posts.html from the real
# phpBB 3.3.10 page: its chrome kept, its 10 posts cycled to 25 with new
# ids and longer bodies (chatter, quotes, votes, spoilers, struck text).
import re, sys
src = open(sys.argv[1]).read()
starts = [m.start() for m in re.finditer(r'\t*<div id="p\d+" class="post ', src)]
end = src.index('<div class="action-bar bar-bottom">')
end = src.rindex('\n', 0, end)  # keep the blank lines before it
head, tail = src[:starts[0]], src[end:]
posts = [src[a:b] for a, b in zip(starts, starts[1:] + [end])]
names = ["alice", "bob", "carol", "dave"]
out = [head]
for i in range(25):
    p = posts[i % len(posts)]
    old = re.search(r'id="p(\d+)"', p).group(1)
    new = str(100 + i)
    p = re.sub(r'\bp=%s\b' % old, 'p=' + new, p)
    p = re.sub(r'#p%s\b' % old, '#p' + new, p)
    p = p.replace('id="p%s"' % old, 'id="p%s"' % new).replace('profile%s"' % old, 'profile%s"' % new)
    p = p.replace('post_content%s"' % old, 'post_content%s"' % new).replace('/post/%s/' % old, '/post/%s/' % new)
    p = p.replace('data-post-id="%s"' % old, 'data-post-id="%s"' % new)
    who, other = names[i % 4], names[(i + 1) % 4]
    extra = ''.join(
        'Paragraph %d of the case against %s: the vote timing on day %d looked coordinated, '
        'and the claim came far too late to be believed.<br>\n' % (k, other, k + 1) for k in range(3))
    extra += ('<blockquote><div><cite>%s wrote:</cite>I am town, <strong class="text-strong">vote: %s</strong></div></blockquote>'
              'Not convinced. <span style="text-decoration:line-through">maybe</span> '
              '<strong class="text-strong">VOTE: <span style="text-decoration:line-through">%s</span> %s</strong><br>\n'
              '<div style="padding: 5px; border: 1px dotted;"><em class="text-italics">spoiler:</em> my notes, %d lines</div>\n') % (other, who, who, other, i)
    p = p.replace('<div class="content">', '<div class="content">' + extra, 1)
    out.append(p)
out.append(tail)
open(sys.argv[2], 'w').write(''.join(out))
